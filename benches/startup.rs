//! First frame after start (README "Performance"): the real binary in a pseudo-terminal on
//! the shipped sample, timed from spawn until the screen shows all five panes, and until the
//! audited sample is on screen. 20 runs; median and worst.
//!
//! `cargo bench --bench startup`

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const RUNS: usize = 20;

fn one_run() -> (Duration, Duration) {
    let home = std::env::temp_dir().join(format!("gpuplan-startup-{}", std::process::id()));
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 60,
            cols: 200,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("pty");
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_gpuplan"));
    command.env("TERM", "xterm-256color");
    command.env("GPUPLAN_CONFIG_DIR", home.join("config"));
    command.env("GPUPLAN_DATA_DIR", home.join("data"));
    let start = Instant::now();
    let mut child = pair.slave.spawn_command(command).expect("spawn");
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().expect("reader");
    let mut keys = pair.master.take_writer().expect("writer");
    let size = NonZeroU16::new(60).expect("rows");
    let width = NonZeroU16::new(200).expect("cols");
    let parser = Arc::new(Mutex::new(vt100::Parser::new(size, width, 0)));
    let feed = Arc::clone(&parser);
    thread::spawn(move || {
        let mut buffer = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buffer) {
            if n == 0 {
                break;
            }
            if let Ok(mut p) = feed.lock() {
                p.process(&buffer[..n]);
            }
        }
    });
    let wait = |ready: &dyn Fn(&str) -> bool| loop {
        let text = parser.lock().map(|p| p.screen().contents()).unwrap_or_default();
        if ready(&text) {
            return start.elapsed();
        }
        assert!(start.elapsed() < Duration::from_secs(30), "no frame:\n{text}");
        thread::sleep(Duration::from_micros(200));
    };
    let first = wait(&|s: &str| s.contains("5 Contracts") && s.contains("h100-sxm"));
    let audited = wait(&|s: &str| s.contains("stranded spend"));
    let _ = keys.write_all(b"q");
    let _ = keys.flush();
    let _ = child.wait();
    (first, audited)
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let mut firsts = Vec::new();
    let mut audited = Vec::new();
    for _ in 0..RUNS {
        let (f, a) = one_run();
        firsts.push(f);
        audited.push(a);
    }
    firsts.sort();
    audited.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "first frame after start: median {:.0} ms, worst {:.0} ms; audited sample on screen: median {:.0} ms, worst {:.0} ms ({RUNS} runs)",
        ms(firsts[RUNS / 2]),
        ms(firsts[RUNS - 1]),
        ms(audited[RUNS / 2]),
        ms(audited[RUNS - 1])
    );
}
