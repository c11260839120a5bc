/* fmvgen-ns.c - the helper `fmvgen select` puts before each command of a
 * variant: runs it in a private mount namespace with the variant's copy
 * bind-mounted at the project's own path (lib/run/namespace.h). A program
 * of its own so that each run pays for a small static start, not for
 * fmvgen's libclang. */
#include "run/namespace.h"

int main(int argc, char **argv)
{
    return ns_helper_main(argc, argv);
}
