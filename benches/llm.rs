//! Benchmark of the language-model layer (`cargo bench --bench llm`).
//!
//! 1. Throughput: LlmClient (openai backend) against a loopback chat-completions
//!    server (wiremock) answering after 200 ms, concurrency 32. The ideal is
//!    32 / 0.2 s = 160 calls/s; the target is at least 90 % of it.
//! 2. Overhead: the layer's own CPU per call, measured two ways:
//!    - the full path except the network (render the prompt, hash the call key,
//!      look it up in the SQLite record, parse and validate the reply), on one
//!      thread, sequentially, from a warm record;
//!    - the full openai path against a server answering at once, as process CPU
//!      time per call (an upper bound: it includes the mock server's own CPU).
//!
//! Environment: LLM_BENCH_CALLS (throughput calls, default 640).

use std::time::{Duration, Instant};

use serde_json::json;
use synth::llm::config::RoleModel;
use synth::llm::{
    ApiKey, ClientOptions, LanguageModel, LlmClient, LlmConfig, NeutralSubtask, Outcome,
    ReconstructRequest, Role,
};
use synth::store::calls::CallLog;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn cfg(base: &str, concurrency: usize) -> LlmConfig {
    let mut cfg = LlmConfig {
        base_url: format!("{base}/v1"),
        api_key: Some(ApiKey::new("sk-bench")),
        timeout_ms: 5_000,
        max_retries: 0,
        concurrency,
        ..LlmConfig::default()
    };
    for role in Role::ALL {
        *cfg.roles.get_mut(role) = RoleModel {
            model: "bench".into(),
            multimodal: false,
        };
    }
    cfg
}

fn store() -> CallLog {
    CallLog::in_memory().unwrap()
}

fn req(i: usize) -> ReconstructRequest {
    ReconstructRequest {
        instruction: format!("Export report {i} as PDF, then compress the PDF."),
        subtasks: vec![
            NeutralSubtask {
                id: "A".into(),
                instruction: format!("Export '/home/user/Documents/report{i}.docx' as PDF."),
            },
            NeutralSubtask {
                id: "B".into(),
                instruction: format!("Compress '/home/user/Documents/report{i}.pdf'."),
            },
        ],
    }
}

async fn server(delay: Duration) -> MockServer {
    let server = MockServer::start().await;
    let body = json!({
        "id": "c", "object": "chat.completion", "created": 1, "model": "bench",
        "choices": [{"index": 0, "message": {"role": "assistant",
                     "content": "{\"edges\": [[\"A\", \"B\"]]}"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 12, "total_tokens": 312}
    });
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(body)
                .set_delay(delay),
        )
        .mount(&server)
        .await;
    server
}

/// User + system CPU time of this process (Linux /proc; `None` elsewhere).
fn process_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 of stat (utime, stime) are at 11 and 12 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_secs_f64(ticks as f64 / 100.0))
}

async fn run_calls(llm: &LlmClient, from: usize, n: usize) -> Duration {
    let start = Instant::now();
    let mut tasks = Vec::with_capacity(n);
    for i in from..from + n {
        let llm = llm.clone();
        tasks.push(tokio::spawn(async move {
            let r = req(i);
            let reply = llm.reconstruct(&r).await.expect("call failed");
            assert!(matches!(reply.outcome, Outcome::Accepted(_)));
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    start.elapsed()
}

async fn bench() {
    let calls: usize = std::env::var("LLM_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(640);

    // 1. Throughput at 200 ms latency, concurrency 32.
    let slow = server(Duration::from_millis(200)).await;
    let opts = ClientOptions {
        check_endpoint: false,
        budget: Default::default(),
        ..ClientOptions::default()
    };
    let llm = LlmClient::openai(cfg(&slow.uri(), 32), store(), opts.clone())
        .await
        .unwrap();
    run_calls(&llm, 1_000_000, 64).await; // warm the connection pool
    let elapsed = run_calls(&llm, 0, calls).await;
    let rate = calls as f64 / elapsed.as_secs_f64();
    println!(
        "throughput: {calls} calls, 200 ms server latency, concurrency 32: {:.2} s, {rate:.1} calls/s \
         ({:.1} % of the ideal 160 calls/s; target >= 90 %)",
        elapsed.as_secs_f64(),
        rate / 160.0 * 100.0
    );

    // 2a. Layer overhead without the network: warm record, sequential, one thread.
    let fast = server(Duration::ZERO).await;
    let record = store();
    let live = LlmClient::openai(cfg(&fast.uri(), 8), record.clone(), opts.clone())
        .await
        .unwrap();
    let n = 2_000;
    run_calls(&live, 0, n).await;
    let cached = LlmClient::openai(cfg(&fast.uri(), 8), record, opts.clone())
        .await
        .unwrap();
    let start = Instant::now();
    for i in 0..n {
        let reply = cached.reconstruct(&req(i)).await.unwrap();
        assert!(reply.info.cached);
    }
    let per_call = start.elapsed() / n as u32;
    println!(
        "overhead without network (render + key + record lookup + parse + validate), \
         sequential: {:.1} µs per call",
        per_call.as_secs_f64() * 1e6
    );

    // 2b. Full openai path at zero latency: process CPU per call (upper bound).
    let fresh = LlmClient::openai(
        cfg(&fast.uri(), 8),
        store(),
        ClientOptions {
            no_cache: true,
            ..opts
        },
    )
    .await
    .unwrap();
    let cpu0 = process_cpu();
    let wall = run_calls(&fresh, 0, n).await;
    if let (Some(a), Some(b)) = (cpu0, process_cpu()) {
        println!(
            "full openai path at zero latency: {n} calls in {:.2} s, process CPU {:.0} µs per call \
             (layer + reqwest/hyper client + the in-process mock server)",
            wall.as_secs_f64(),
            (b - a).as_secs_f64() * 1e6 / n as f64
        );
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(bench());
}
