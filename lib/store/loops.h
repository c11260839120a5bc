/* loops.h - one vectorized loop as the compiler reported it: the row type
 * the record readers (records/records.h) deliver and the store keeps in its
 * loops table (store_add_loop). It lives in the store, below the readers,
 * so that the store needs nothing from the layers above it.
 *
 * The meaning of each field (which function, which location, which width
 * each compiler fills) is set out in records/records.h. */
#ifndef FMVGEN_STORE_LOOPS_H
#define FMVGEN_STORE_LOOPS_H

enum loop_kind {
    LOOP_VECTORIZED = 0,   /* a loop was vectorized */
    LOOP_SLP = 1,          /* straight-line code vectorized (SLP) */
};

struct loop_record {
    char *function;     /* compiled function: C name or mangled C++ symbol, clone suffix stripped; NULL from a log */
    char *file;         /* location as written by the compiler; may be relative to the compile dir; NULL if none */
    int line, column;   /* 0 when unknown */
    enum loop_kind kind;
    int vector_bytes;   /* 16 / 32 / 64; 0 when the compiler did not say (Clang never does) */
    int vector_lanes;   /* elements per vector (Clang's VectorizationFactor); 0 when unknown (GCC) */
    char *message;      /* the compiler's text, for the report */
};

/* The stored spelling of a kind (loops.kind): "loop" / "slp". */
const char *loop_kind_name(enum loop_kind k);

#endif
