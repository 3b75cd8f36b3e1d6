//! Composition benchmarks (criterion) and the figures.
//!
//! `cargo bench --bench compose` runs the criterion groups (small samples):
//! composing 2,000 `omnibench` tasks from synthetic pools of 255, 2,550 and 25,500
//! subtasks, and 2,000 tasks of exactly 5, 10 and 15 nodes.
//!
//! `cargo bench --bench compose -- --report [--jobs N] [--only NAME]` instead prints the issue's
//! figures with `perf_compose`: 36,076 `omnibench` tasks from 255 subtasks over 49
//! applications, then the growth with pool size and task size.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion};
use synth::graph::synthetic::{perf_compose_with, PerfConfig};

fn cfg(subtasks: usize, tasks: usize, nodes: Option<usize>) -> PerfConfig {
    PerfConfig {
        subtasks,
        apps: 49,
        tasks,
        seed: 1,
        nodes,
        ..PerfConfig::default()
    }
}

fn report(jobs: Option<usize>, only: Option<&str>) {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(j) = jobs {
        b = b.num_threads(j);
    }
    let pool = match b.build() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cannot build thread pool: {e}");
            return;
        }
    };
    pool.install(|| {
        let runs: Vec<(&str, PerfConfig)> = vec![
            ("issue figure", cfg(255, 36_076, None)),
            ("pool 2,550", cfg(2_550, 36_076, None)),
            ("pool 25,500", cfg(25_500, 36_076, None)),
            ("5 nodes", cfg(255, 36_076, Some(5))),
            ("10 nodes", cfg(255, 36_076, Some(10))),
            ("15 nodes", cfg(2_550, 36_076, Some(15))),
        ];
        for (name, c) in runs {
            if only.is_some_and(|o| !name.contains(o)) {
                continue;
            }
            match perf_compose_with(&c) {
                Ok(r) => println!("== {name}\n{r}\n"),
                Err(e) => println!("== {name}: {e}\n"),
            }
        }
    });
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("compose_pool_size");
    g.sample_size(10);
    for subtasks in [255, 2_550, 25_500] {
        g.bench_with_input(BenchmarkId::from_parameter(subtasks), &subtasks, |b, &s| {
            b.iter(|| black_box(perf_compose_with(&cfg(s, 2_000, None))))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("compose_task_size");
    g.sample_size(10);
    for nodes in [5, 10, 15] {
        g.bench_with_input(BenchmarkId::from_parameter(nodes), &nodes, |b, &n| {
            b.iter(|| black_box(perf_compose_with(&cfg(2_550, 2_000, Some(n)))))
        });
    }
    g.finish();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--report") {
        let jobs = args
            .iter()
            .position(|a| a == "--jobs")
            .and_then(|i| args.get(i + 1))
            .and_then(|j| j.parse().ok());
        let only = args
            .iter()
            .position(|a| a == "--only")
            .and_then(|i| args.get(i + 1))
            .map(String::as_str);
        report(jobs, only);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
