/* fmvgen-cc.c - the compiler wrapper of `fmvgen scan`, as its own small
 * executable: the links of scan's wrapper directory (cc, gcc, clang++, ...)
 * point here. It is fmvgen's wrapper code without the rest of the tool, so
 * that each of the build's compiles does not pay for loading libclang
 * (~45 ms per process, measured), which fmvgen itself needs. Called by
 * its own name with a command after it, it is a compiler launcher
 * (wrapper_launch: select's reference builds through a CMake cache). */
#include "capture/wrapper.h"
#include "util/util.h"

int main(int argc, char **argv)
{
    int rc = wrapper_main(argc, argv);
    if (rc >= 0) return rc;
    /* as a launcher: fmvgen-cc COMPILER ARGS... (CMake's compiler launcher) */
    if (argc >= 2 && (rc = wrapper_launch(argc - 1, argv + 1)) >= 0) return rc;
    fmv_error("%s: the compiler wrapper of 'fmvgen scan'; it runs through links named like compilers",
              argc > 0 ? argv[0] : WRAPPER_EXE_NAME);
    return 2;
}
