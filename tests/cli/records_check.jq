# records_check.jq - checks report.json's run_records (docs/DESIGN.md,
# "report.json run_records") against the report's own intervals: their
# shape, and that the means of the per-run numbers (summed over the
# workloads where the decision sums them) are the means every interval
# reports. Prints one line per disagreement, then "checked N".
def close($a; $b): (($a - $b) | if . < 0 then -. else . end) <= 1e-6 * (1 + ($b | if . < 0 then -. else . end));
def mean: add / length;
# per run, hot function k's samples of an arm, summed over the workloads
def persum($rec; $st; $arm; $k): [$rec[] | select(.stage == $st and .arm == $arm) | .samples[$k]] | transpose | map(add);
def totals($rec; $st; $arm; $w): [$rec[] | select(.stage == $st and .arm == $arm and .workload == $w) | .total[]];
def cmp($what; $a; $b): if ($a | type) == "number" and close($a; $b) then "ok" else "\($what): records give \($a), the report \($b)" end;

. as $j | $j.run_records as $rr | $rr.records as $rec | $j.runs as $n | ($rr.functions | length) as $nh |
($j.statistics.confirmation.rounds) as $nc |
[
  # shape: every record of a stage has one entry per round, every hot function one array
  ($rec[] | (if .stage == "profiled" then $n else $nc end) as $m |
     select((.round | length) != $m or (.position | length) != $m or (.total | length) != $m
            or (.samples | length) != $nh or ([.samples[] | length != $m] | any))
     | "shape: \(.stage) \(.arm) workload \(.workload)"),
  ($rec[] | select(.stage == "profiled" and .round != [range(0; $n)]) | "rounds: \(.arm) \(.round)"),
  ($rec[] | select(.stage == "confirmation" and .round != [range($n; $n + $nc)]) | "confirmation rounds: \(.arm) \(.round)"),
  (if ($rr.function_names | length) != $nh then "function_names" else empty end),
  # every workload has each arm the first workload has, in each stage
  ([$rec[] | select(.workload == 0) | [.stage, .arm]] as $arms |
     range(0; $j.workloads | length) as $w |
     if [$rec[] | select(.workload == $w) | [.stage, .arm]] != $arms then "arms of workload \($w)" else empty end),
  # positions: in each stage's round, the arms ran at 0..k-1, once each
  ($rec | map(select(.workload == 0)) | group_by(.stage)[] | . as $st |
     [.[] | [.round, .position] | transpose[]] | group_by(.[0])[] |
     select((map(.[1]) | sort) != [range(0; length)]) | "positions of round \(.[0][0]): \(map(.[1]))"),
  # the means of the profiled rounds are the intervals'
  (range(0; $nh) as $k | $rr.functions[$k] as $f | $j.functions[$f] as $fn |
     (if $fn.display_name != $rr.function_names[$k] then "function \($k): name" else empty end),
     ($fn.variants | to_entries[] | .key as $v |
        (if .value.estimate_from == "confirmation_runs" then .value.profiled_runs_interval else .value end) as $iv |
        select($iv.valid) |
        cmp("\($fn.name) baseline"; persum($rec; "profiled"; "baseline"; $k) | mean; $iv.mean_baseline),
        cmp("\($fn.name) \($v)"; persum($rec; "profiled"; $v; $k) | mean; $iv.mean_variant)),
     ($j.statistics.calibration.functions[] | select(.name == $fn.display_name and .baseline_vs_aa.valid) |
        cmp("\($fn.name) A/A"; persum($rec; "profiled"; "aa"; $k) | mean; .baseline_vs_aa.mean_variant)),
     (($fn.confirmation.variants // {}) | to_entries[] | .key as $v | .value as $iv | select($iv.valid) |
        cmp("\($fn.name) confirmation baseline"; persum($rec; "confirmation"; "baseline"; $k) | mean; $iv.mean_baseline),
        cmp("\($fn.name) confirmation \($v)"; persum($rec; "confirmation"; $v; $k) | mean; $iv.mean_variant))),
  # the workloads' totals are the all-candidates and A/A intervals'
  (range(0; $j.workloads | length) as $w | $j.workloads[$w] as $wl |
     (($wl.all_candidates // {}) | to_entries[] | .key as $v | .value as $iv | select($iv != null and $iv.valid) |
        cmp("workload \($w) total baseline"; totals($rec; "profiled"; "baseline"; $w) | mean; $iv.mean_baseline),
        cmp("workload \($w) total \($v)"; totals($rec; "profiled"; $v; $w) | mean; $iv.mean_variant)),
     ($j.statistics.calibration.workloads[$w].total_samples_baseline_vs_aa | select(. != null and .valid) |
        cmp("workload \($w) total A/A"; totals($rec; "profiled"; "aa"; $w) | mean; .mean_variant)))
] | (map(select(. != "ok"))[]), "checked \(map(select(. == "ok")) | length)"
