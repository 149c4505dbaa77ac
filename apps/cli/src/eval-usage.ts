/** Help texts of `bvl eval` and `bvl eval-worker`, apart from the commands so `bvl --help` loads nothing else. */

/** One-line summary of `bvl eval`. */
export const EVAL_SUMMARY = 'run the golden suite through an agent in throwaway tenants; store, compare and report (L5)';

/** `bvl eval --help`. */
export const EVAL_USAGE = `usage: bvl eval [--agent blueprint|openai[,…]] [--model a,b] [--cases a,b] [--defects all|fixer|agent|none] [--epochs k] [options]
       bvl eval --resume <batch> [options]
       bvl eval --queue [--wait] | --queue --schedule "<cron>" | --queue --unschedule
       bvl eval report [--batch b] [--baseline b] -o report.html      (and a page per attempt in report-attempts/)
       bvl eval show <batch> [--case c [--variant v] [--prompt p] [--subject s] [--epoch n]] [--format pretty|json]
       bvl eval add-case --from-session <id> [--tenant t] [--name n] [--cases-dir dir]

  --agent <a,b>        the agents under test: blueprint (default: stages each case's blueprint with its
                       defect set and repairs only through verify_build and the fixer; no model), and/or
                       openai (the built-in agent over OPENAI_BASE_URL / OPENAI_API_KEY); several make a matrix
  --model <a,b>        the models the openai agent runs (default BVL_MODEL): several make a matrix, each
                       model a subject compared side by side (pass rate, pass@k, rounds, tokens, cost, latency)
  --judge-model <m>    grade the cases' rubric assertions with this model (not the agent's; same endpoint)
  --budget-tokens <n>  cap every openai attempt's tokens (its session budget; a case's "budget" can only go lower);
  --budget-usd <x>     its cost (needs the model's price: BVL_PRICES) and --budget-seconds <s> its wall clock:
                       each model call's max_tokens is what is left, and a spent budget ends the attempt as budget
  --record <dir>       record every model call into a cassette: one plain JSON file per request
  --replay <dir>       answer every model call from a cassette, with no endpoint; a request it has no
                       answer for makes that attempt an error naming the request
  --cases <a,b>        golden cases to run (default all under --cases-dir)
  --cases-dir <dir>    the golden cases (default evals/golden)
  --defects <which>    defect sets run besides each clean blueprint: all (default), fixer, agent, none
  --epochs <k>         attempts per case and variant (default 1); pass@1, pass@k and pass^k over them
  --concurrency <n>    attempts at once (default 1; halves while the agent is rate limited)
  --timeout <s>        time limit per attempt in seconds (default 600); then the attempt is "limit"
  --suite <name>       batches compare within a suite (default golden)
  --resume <batch>     continue a batch that was stopped; finished attempts are not run again
  --baseline <batch>   compare with this batch (default: the previous finished batch of the suite and
                       defect sets that ran the same subjects); only like is compared with like
  --min-pass <x>       exit 100 when the pass rate (passes / graded attempts) is below x (0..1)
  --fail-on-regression exit 100 when an entry that passed in the baseline fails now
  --format <f>         pretty (default), json ({ batch, cases, subjects, spend, pass, fail, …, baseline })
                       or junit (JUnit XML for CI: a failure the case expects of the agent is skipped)
  --queue              put the attempts on the PostgreSQL job queue (DATABASE_URL) for bvl eval-worker
  --wait               with --queue: wait for the workers to finish the batch, then report as a local run
  --schedule <cron>    with --queue: start a batch on this cron schedule (UTC), run by the workers
  --unschedule         with --queue: remove the schedule
  -h, --help           show this help

Each attempt runs in its own tenant, created and dropped; each row is stored as it finishes, with
its session's rounds, and a re-run attempt keeps its earlier tries.
Exit codes: 0 ran (failures are results, not errors), 100 the pass rate is below --min-pass or an
entry regressed (--fail-on-regression), 2 could not run or an attempt hit an infrastructure error.`;

/** One-line summary of `bvl eval-worker`. */
export const EVAL_WORKER_SUMMARY = 'take eval attempts off the PostgreSQL queue (bvl eval --queue) and run them';

/** `bvl eval-worker --help`. */
export const EVAL_WORKER_USAGE = `usage: bvl eval-worker [--concurrency n] [--cases-dir dir] [--timeout s] [--idle-exit s] [--poll s]

  --concurrency <n>    attempts at once (default 1)
  --cases-dir <dir>    the golden cases a nightly batch is made of (default evals/golden)
  --timeout <s>        time limit per attempt in seconds (default 600)
  --idle-exit <s>      exit after s seconds without a job (default: run until SIGINT/SIGTERM)
  --poll <s>           seconds between looks at an empty queue (default 2, at least 0.5)
  -h, --help           show this help

Needs DATABASE_URL (the queue lives in the same PostgreSQL database, pg-boss schema $BVL_QUEUE_SCHEMA or
pgboss). Fires the schedule set with bvl eval --queue --schedule. SIGINT/SIGTERM: the attempts in
flight finish (30 s at most; then they go back on the queue), then the worker exits 0.`;
