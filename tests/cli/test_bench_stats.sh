#!/bin/bash
# test_bench_stats.sh - bench/lib/stats.sh, which bench/o2-table.sh uses for
# issue 9's table: ratio()'s interval, median(), and gain_share /
# gain_share_geomean, the share of the v3 -mno-fma rebuild's gain a
# selected build reaches - a percentage only where that gain is
# significant (libebur128: o2-table printed "89%" for a selected build that
# was the baseline against a 1.021x [0.969, 1.076] rebuild, and "615%" over
# all workloads for a 1.000x one).
source "$TESTLIB"
source "$FMVGEN_SRC/bench/lib/stats.sh"

expect_eq "median odd" "$(median <<<"3 1 2")" 2
expect_eq "median even" "$(median <<<"4 1 3 2")" 2.5
read -r r lo hi _ < <(ratio "2 2 2 2" "1 1 1 1")
expect_eq "ratio of constant times" "$r $lo $hi" "2.0000 2.0000 2.0000"
read -r r lo hi _ < <(ratio "1.0 1.1 0.9 1.0" "1.0 0.9 1.1 1.0")
expect_eq "ratio of noise holds 1" "$(awk -v l="$lo" -v h="$hi" 'BEGIN { print (l < 1 && h > 1) ? "yes" : "no" }')" yes

expect_eq "share: significant gain" "$(gain_share 1.05 1.10 1.03)" "50%"
expect_eq "share: the whole gain" "$(gain_share 1.10 1.10 1.05)" "100%"
expect_eq "share: no gain" "$(gain_share 1.01 0.99 0.95)" "n/a (v3-nofma gains nothing)"
expect_eq "share: a gain inside the noise" "$(gain_share 1.019 1.021 0.969)" \
  "n/a (v3-nofma gain 1.021x not significant: its interval holds 1.00)"
expect_eq "share: interval touching 1.00" "$(gain_share 1.02 1.04 1.00)" \
  "n/a (v3-nofma gain 1.040x not significant: its interval holds 1.00)"
expect_eq "geomean share: a workload gains significantly" "$(gain_share_geomean 1.045 1.05 1)" "90%"
expect_eq "geomean share: none does" "$(gain_share_geomean 1.003 1.0004 0)" \
  "n/a (v3-nofma 1.000x: no workload where its gain is significant)"
expect_eq "geomean share: no gain" "$(gain_share_geomean 1.003 0.998 0)" "n/a (v3-nofma gains nothing)"
# o2-table takes its shares from these functions.
expect_match "o2-table uses gain_share" "$(cat "$FMVGEN_SRC/bench/o2-table.sh")" 'share=\$\(gain_share "\$sr" "\$nr" "\$nl"\)'
expect_match "o2-table uses gain_share_geomean" "$(cat "$FMVGEN_SRC/bench/o2-table.sh")" 'gain_share_geomean "\$gs" "\$gf" "\$nofma_sig"'

# bench/lib/outputs.sh: o2-table's output column leaves out the lines that
# vary between two baseline runs (nbench prints its own timing on line 9:
# every build, the baseline's own copy too, read DIFFERENT before).
source "$FMVGEN_SRC/bench/lib/outputs.sh"
od=$(mktemp -d)
printf 'head\n1.23 s\nchecksum 42\n' >"$od/b1"
printf 'head\n1.31 s\nchecksum 42\n' >"$od/b2"
printf 'head\n0.99 s\nchecksum 42\n' >"$od/same"
printf 'head\n0.99 s\nchecksum 43\n' >"$od/diff"
printf 'head\n0.99 s\n' >"$od/short"
expect_eq "outputs: a varying timing line left out" "$(output_verdict "$od/b1" "$od/b2" "$od/same")" \
  "same (1 line that varies between baseline runs left out)"
expect_eq "outputs: a different checksum" "$(output_verdict "$od/b1" "$od/b2" "$od/diff")" DIFFERENT
expect_eq "outputs: a missing line" "$(output_verdict "$od/b1" "$od/b2" "$od/short")" DIFFERENT
expect_eq "outputs: stable baseline, identical build" "$(output_verdict "$od/b1" "$od/b1" "$od/b1")" same
expect_eq "outputs: stable baseline, timing differs" "$(output_verdict "$od/b1" "$od/b1" "$od/same")" DIFFERENT
rm -rf "$od"
expect_match "o2-table uses output_verdict" "$(cat "$FMVGEN_SRC/bench/o2-table.sh")" 'output_verdict "\$tmp/first'
finish
