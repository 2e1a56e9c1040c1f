-- pgbench script for scripts/bench-installations: the baseline, one plain single-row INSERT per transaction
-- (a 64-hex random token and a small jsonb document, like an installation save's payload).
\set r random(1, 1000000000000000)
\set s :r + 1
INSERT INTO bench_baseline (token, data)
VALUES (md5(:r::text) || md5(:s::text), '{"deviceType":"ios","channels":["bench"]}');
