//! The engine floor of the audit benchmark: a plain Polars scan of a job-log CSV and a
//! group-by that sums GPU-hours and counts jobs per cluster, with nothing of gpuplan's
//! validation, classification or time series. `cargo run --release --example polars_floor FILE`.
//! `FLOOR_COLUMNS=JOB,CLUSTER,START,END,GPUS` names the columns of a log whose header says
//! them otherwise (bench/shapes.sh's other shapes).

use std::time::Instant;

use polars::prelude::*;

fn main() -> PolarsResult<()> {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: polars_floor FILE");
        std::process::exit(2);
    };
    let started = Instant::now();
    let names = std::env::var("FLOOR_COLUMNS").unwrap_or("job_id,cluster,start,end,gpus".into());
    let [job, cluster, start, end, gpus] = names.split(',').collect::<Vec<_>>()[..] else {
        eprintln!("FLOOR_COLUMNS: five names, JOB,CLUSTER,START,END,GPUS");
        std::process::exit(2);
    };
    let options = StrptimeOptions {
        format: Some(std::env::var("FLOOR_FMT").unwrap_or("%Y-%m-%dT%H:%M:%SZ".into()).into()),
        strict: false,
        exact: true,
        cache: true,
    };
    let hours = (col(end)
        .str()
        .to_datetime(Some(TimeUnit::Milliseconds), None, options.clone(), lit("raise"))
        .cast(DataType::Int64)
        - col(start)
            .str()
            .to_datetime(Some(TimeUnit::Milliseconds), None, options, lit("raise"))
            .cast(DataType::Int64))
    .cast(DataType::Float64)
        / lit(3_600_000.0);
    let per_cluster = LazyCsvReader::new(PlRefPath::from(path.as_str()))
        .with_has_header(true)
        .with_dtype_overwrite(Some(Arc::new(Schema::from_iter([
            Field::new(gpus.into(), DataType::Float64),
            Field::new("gpu_util_pct".into(), DataType::Float64),
            Field::new(job.into(), DataType::String),
        ]))))
        .with_ignore_errors(true)
        .finish()?
        .group_by([col(cluster)])
        .agg([
            col(job).n_unique().alias("jobs"),
            (col(gpus) * hours).sum().alias("gpu_hours"),
        ])
        .sort([cluster], Default::default());
    let per_cluster = if std::env::var("FLOOR_ENGINE").as_deref() == Ok("in-memory") {
        per_cluster.collect()?
    } else {
        // One query without sinks always gives a single frame.
        per_cluster.collect_with_engine(Engine::Streaming)?.unwrap_single()
    };
    println!("{per_cluster}");
    println!("floor: {:.2} s", started.elapsed().as_secs_f64());
    Ok(())
}
