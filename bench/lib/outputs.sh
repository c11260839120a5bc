# outputs.sh - whether a build's stdout matches the baseline's, for
# bench/o2-table.sh, as `fmvgen select` compares them: lines that differ
# between two runs of the baseline (a benchmark printing its own timing)
# are left out; every other line must be the same, and so must the number
# of lines. Source it; bash.
#
# output_verdict BASE1 BASE2 OTHER   (files: two baseline runs' stdout, a
# build's) prints "same", "same (N lines that vary between baseline runs
# left out)" or "DIFFERENT".
output_verdict() {
  awk -v b1="$1" -v b2="$2" -v o="$3" '
    function slurp(f, a,   n, l) { n = 0; while ((getline l < f) > 0) a[++n] = l; close(f); return n }
    BEGIN {
      n1 = slurp(b1, x); n2 = slurp(b2, y); no = slurp(o, z)
      if (no != n1) { print "DIFFERENT"; exit }
      vary = 0
      for (i = 1; i <= n1; i++) {
        if (n2 != n1 || x[i] != y[i]) { vary++; continue }
        if (z[i] != x[i]) { print "DIFFERENT"; exit }
      }
      if (vary == 0) print "same"
      else printf "same (%d %s between baseline runs left out)\n", vary, vary == 1 ? "line that varies" : "lines that vary"
    }'
}
