-- The audit's work in DuckDB SQL, for the benchmark in docs/performance.md: validate rows,
-- classify each job by the built-in rules of catalogs/classification.toml (labels first, then
-- name and queue patterns, name stems for sweeps and services, hours and GPUs), and sum jobs and
-- GPU-hours per cluster and class over the last 90 days. gpuplan also builds minute-resolution
-- occupancy, hourly series and the stranded spend, which this query leaves out.
-- The log's path is passed as the variable `log` (SET VARIABLE log = '...').
with raw as (
  select * from read_csv(getvariable('log'), all_varchar = true, header = true)
), runs as (
  select cluster, job_id, lower(name) as lname, lower(queue) as lqueue, lower(trim(label)) as label,
         try_strptime(start, '%Y-%m-%dT%H:%M:%SZ') as s, try_strptime("end", '%Y-%m-%dT%H:%M:%SZ') as e,
         try_cast(gpus as double) as gpus, try_cast(gpu_util_pct as double) / 100 as util
  from raw
), valid as (
  select * from runs
  where job_id is not null and s is not null and gpus is not null and not isnan(gpus) and gpus >= 0
    and (e is null or e >= s) and (util is null or not isnan(util))
), bounds as (
  select max(greatest(coalesce(e, s), s)) as w_end, max(greatest(coalesce(e, s), s)) - interval 90 day as w_start from valid
), jobs as (
  select cluster, job_id,
    sum(epoch(coalesce(e, (select w_end from bounds)) - s) / 3600) as run_hours,
    max(gpus) as job_gpus,
    max(label) as label,
    min(regexp_replace(lname, '[0-9a-f]{6,}|[0-9]+', '#', 'g')) as stem,
    min(s) as first_s, max(coalesce(e, (select w_end from bounds))) as last_e,
    bool_or(regexp_matches(lname, 'serve|serving|infer|endpoint|vllm|triton|tgi|-api')) as serving_name,
    bool_or(regexp_matches(lqueue, 'serve|serving|prod|online|inference|realtime|latency')) as ls_queue,
    bool_or(regexp_matches(lname, 'sweep|hpo|tune-|tuning|grid|ablation|search')) as sweep_name,
    bool_or(regexp_matches(lname, 'eval|bench|validate|test-')) as eval_name,
    bool_or(regexp_matches(lname, 'preprocess|etl|tokeniz|data-prep|dataprep|convert|dedup|embed-batch')) as prep_name,
    bool_or(regexp_matches(lname, 'train|pretrain|sft|finetune|fine-tune|rlhf|dpo|ppo|distill')) as train_name,
    bool_or(regexp_matches(lqueue, 'sweep|eval|dev|debug|interactive|preempt|spot|scavenger')) as burst_queue,
    bool_or(regexp_matches(lqueue, 'train|batch|research')) as train_queue
  from valid group by cluster, job_id
), stems as (
  select cluster, stem, count(*) as stem_jobs,
         sum(run_hours) / nullif(epoch(max(last_e) - min(first_s)) / 3600, 0) as overlap
  from jobs where stem is not null group by cluster, stem
), classified as (
  select j.cluster, j.job_id, case
    when j.label in ('training','train','pretrain','pretraining','finetune','fine-tune','sft') then 'training'
    when j.label in ('inference','infer','serving','serve','online','ls','latency-sensitive') then 'inference'
    when j.label in ('burst','sweep','hpo','eval','evaluation','preprocess','preprocessing','batch-burst','be','best-effort') then 'burst'
    when j.serving_name then 'inference'
    when j.ls_queue then 'inference'
    when j.sweep_name or j.eval_name or j.prep_name then 'burst'
    when j.train_name then 'training'
    when j.burst_queue then 'burst'
    when j.train_queue then 'training'
    when j.run_hours <= 6 and st.stem_jobs >= 5 then 'burst'
    when j.run_hours >= 12 and j.job_gpus <= 8 and st.overlap >= 3 then 'inference'
    when j.run_hours >= 4 and j.job_gpus >= 2 then 'training'
    when j.run_hours <= 4 then 'burst'
    else 'training' end as class
  from jobs j left join stems st on j.cluster = st.cluster and j.stem = st.stem
)
select v.cluster, c.class, count(distinct v.job_id) as jobs,
  sum(v.gpus * epoch(least(coalesce(v.e, b.w_end), b.w_end) - greatest(v.s, b.w_start)) / 3600) as gpu_hours
from valid v join classified c on v.cluster = c.cluster and v.job_id = c.job_id, bounds b
where v.s <= b.w_end and coalesce(v.e, b.w_end) >= b.w_start
group by 1, 2 order by 1, 2;
