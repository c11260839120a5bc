/* probe.c - one include, compiled with one layer's flags (tests/layers/
 * CMakeLists.txt): PROBE_HEADER is "layer/x.h". It builds when that layer
 * may include the header, and fails ("No such file") when it may not. */
#include PROBE_HEADER

int layer_probe(void);
int layer_probe(void)
{
    return 0;
}
