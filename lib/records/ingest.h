/* ingest.h - moves record files named in the store (record_files, status
 * 'pending') into loop rows. A corrupt file is marked 'corrupt' with its
 * error, named on stderr, and skipped; every other file is still read and
 * nothing already stored is dropped. */
#ifndef FMVGEN_INGEST_H
#define FMVGEN_INGEST_H

struct store;

struct ingest_stats {
    int files_read;
    int files_corrupt;
    int loops;           /* rows added */
};

/* Returns 0 when every pending file was read, 1 when some were corrupt
 * (their errors printed), -1 on a store error. */
int records_ingest_pending(struct store *st, struct ingest_stats *stats);

#endif
