//! HTTP to a Prometheus-compatible server: one deadline per query (connect, headers, the whole
//! body and any retries), a bounded retry with backoff for answers that may pass (connection
//! refused or reset, 429, 502, 503, 504), a cap on the size of an answer, and messages that name
//! the server, the HTTP status or the PromQL error. A bearer token is read from the environment
//! variable the settings name and never printed.

use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::data::prometheus::response::{Matrix, ResponseError, parse_labels, parse_matrix};
use crate::model::plan::PrometheusSource;

/// Tries of one request, the first included.
const ATTEMPTS: u32 = 3;
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// Answers are per cluster and step: far smaller than this unless the server misbehaves.
const MAX_ANSWER_BYTES: u64 = 256 * 1024 * 1024;
/// The body is read in pieces this size, the deadline checked between them.
const READ_CHUNK_BYTES: usize = 64 * 1024;

/// A failure talking to the server, with the server's address (never its credentials).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrometheusError {
    pub url: String,
    pub message: String,
}

impl std::fmt::Display for PrometheusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "prometheus {}: {}", self.url, self.message)
    }
}

pub struct PrometheusClient {
    base: String,
    /// The address as shown in messages: no user or password.
    shown: String,
    token: Option<String>,
    http: reqwest::blocking::Client,
    timeout: Duration,
    bytes_received: AtomicU64,
    requests: AtomicU64,
}

/// `https://user:secret@host:9090/prom/` → `https://host:9090/prom`.
pub fn shown_url(url: &str) -> String {
    let trimmed = url.trim().trim_end_matches('/');
    match trimmed.split_once("://") {
        Some((scheme, rest)) => {
            let (authority, path) = rest.split_once('/').map_or((rest, ""), |(a, p)| (a, p));
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            if path.is_empty() {
                format!("{scheme}://{host}")
            } else {
                format!("{scheme}://{host}/{path}")
            }
        }
        None => trimmed.to_string(),
    }
}

impl PrometheusClient {
    /// A client for the settings; the token variable, when named, must be set.
    pub fn connect(source: &PrometheusSource) -> Result<PrometheusClient, PrometheusError> {
        let shown = shown_url(&source.url);
        let fail = |message: String| PrometheusError {
            url: shown.clone(),
            message,
        };
        if let Some((_, problem)) = source.problems().into_iter().next() {
            return Err(fail(problem));
        }
        let token = match &source.token_env {
            Some(var) => match std::env::var(var) {
                Ok(token) if !token.trim().is_empty() => Some(token.trim().to_string()),
                _ => {
                    return Err(fail(format!(
                        "token_env names {var}, which is not set in the environment (export {var}=<bearer token>)"
                    )));
                }
            },
            None => None,
        };
        let timeout = Duration::from_secs(u64::from(source.timeout_seconds.max(1)));
        // The blocking client's own timeout bounds each read, not the request: a server dripping
        // a byte a second never trips it. Each request sets its remaining time instead (`post_once`).
        let http = reqwest::blocking::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("gpuplan/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| fail(format!("cannot set up HTTP: {e}")))?;
        Ok(PrometheusClient {
            base: source.url.trim().trim_end_matches('/').to_string(),
            shown,
            token,
            http,
            timeout,
            bytes_received: AtomicU64::new(0),
            requests: AtomicU64::new(0),
        })
    }

    pub fn shown_url(&self) -> &str {
        &self.shown
    }

    /// Bytes of answers received so far (bodies, after any decompression).
    pub fn bytes_received(&self) -> u64 {
        self.bytes_received.load(Ordering::Relaxed)
    }

    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    fn fail(&self, message: String) -> PrometheusError {
        PrometheusError {
            url: self.shown.clone(),
            message,
        }
    }

    /// A range query over evaluation instants `start_ms..=end_ms` every `step_ms`.
    pub fn query_range(
        &self,
        query: &str,
        start_ms: i64,
        end_ms: i64,
        step_ms: i64,
    ) -> Result<Matrix, PrometheusError> {
        let seconds = |ms: i64| format!("{:.3}", ms as f64 / 1000.0);
        let form = [
            ("query", query.to_string()),
            ("start", seconds(start_ms)),
            ("end", seconds(end_ms)),
            ("step", seconds(step_ms)),
            ("timeout", format!("{}s", self.timeout.as_secs())),
        ];
        let body = self.post("/api/v1/query_range", &form)?;
        parse_matrix(&body).map_err(|e| self.answer_error(e, query))
    }

    /// Label names of the series `matcher` selects between two instants.
    pub fn label_names(&self, matcher: &str, start_ms: i64, end_ms: i64) -> Result<Vec<String>, PrometheusError> {
        let form = [
            ("match[]", matcher.to_string()),
            ("start", format!("{:.3}", start_ms as f64 / 1000.0)),
            ("end", format!("{:.3}", end_ms as f64 / 1000.0)),
        ];
        let body = self.post("/api/v1/labels", &form)?;
        parse_labels(&body).map_err(|e| self.answer_error(e, matcher))
    }

    fn answer_error(&self, error: ResponseError, query: &str) -> PrometheusError {
        match error {
            ResponseError::Api { .. } => self.fail(format!("{error}; the query was: {query}")),
            ResponseError::NotTheApi { .. } => self.fail(error.to_string()),
        }
    }

    /// What a query that ran out of time says: the deadline covers the whole of it.
    fn too_slow(&self, bytes_so_far: usize) -> String {
        let mut message = format!(
            "no answer within {} s (timeout_seconds, for connecting, the headers, the whole body and any retries)",
            self.timeout.as_secs()
        );
        if bytes_so_far > 0 {
            message.push_str(&format!("; {bytes_so_far} bytes of it had come"));
        }
        message
    }

    fn post(&self, path: &str, form: &[(&str, String)]) -> Result<Vec<u8>, PrometheusError> {
        let deadline = Instant::now() + self.timeout;
        let mut backoff = FIRST_BACKOFF;
        let mut attempt = 1;
        loop {
            match self.post_once(path, form, deadline) {
                Ok(body) => return Ok(body),
                // A retry is tried only if its backoff leaves time before the deadline.
                Err((_, true)) if attempt < ATTEMPTS && Instant::now() + backoff < deadline => {
                    std::thread::sleep(backoff);
                    backoff *= 2;
                    attempt += 1;
                }
                Err((message, retry)) => {
                    let tries = if !retry {
                        String::new()
                    } else if attempt >= ATTEMPTS {
                        format!(" (after {attempt} tries)")
                    } else {
                        format!(
                            " (after {attempt} of {ATTEMPTS} tries: the {} s deadline, timeout_seconds, left no time for another)",
                            self.timeout.as_secs()
                        )
                    };
                    return Err(self.fail(format!("{message}{tries}")));
                }
            }
        }
    }

    /// One request, given up at `deadline`: the body, or why not and whether trying again may help.
    fn post_once(&self, path: &str, form: &[(&str, String)], deadline: Instant) -> Result<Vec<u8>, (String, bool)> {
        let Some(left) = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) else {
            return Err((self.too_slow(0), false));
        };
        self.requests.fetch_add(1, Ordering::Relaxed);
        // A request's own timeout is reqwest's total one: it reaches the body as well.
        let mut request = self.http.post(format!("{}{path}", self.base)).form(form).timeout(left);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request.send().map_err(|e| {
            if e.is_timeout() || Instant::now() >= deadline {
                (self.too_slow(0), false)
            } else if e.is_connect() {
                (
                    "cannot connect (is the server up, and the URL its root, e.g. http://host:9090?)".to_string(),
                    true,
                )
            } else {
                (format!("the request failed: {}", without_url(&e)), true)
            }
        })?;
        let status = response.status();
        let body = self.read_body(response, deadline)?;
        match status.as_u16() {
            200..=299 => Ok(body),
            401 | 403 => Err((
                format!(
                    "HTTP {status}: the server refused {}",
                    if self.token.is_some() {
                        "the bearer token from token_env"
                    } else {
                        "a request without credentials (name the variable holding a token with token_env)"
                    }
                ),
                false,
            )),
            // The API answers PromQL errors with 400, 422 or 503 and a JSON body that says why.
            400 | 422 | 503 if body.trim_ascii_start().starts_with(b"{") => Ok(body),
            429 | 502..=504 => Err((format!("HTTP {status}"), true)),
            404 => Err((
                format!("HTTP {status}: no {path} here (the URL should be the server's root, e.g. http://host:9090)"),
                false,
            )),
            _ => Err((format!("HTTP {status}"), false)),
        }
    }

    /// The body in pieces, the deadline checked between them and the size capped: a server
    /// that drips its answer is given up on at the deadline, not after its last byte.
    fn read_body(&self, mut response: impl Read, deadline: Instant) -> Result<Vec<u8>, (String, bool)> {
        let mut body = Vec::new();
        let mut chunk = vec![0u8; READ_CHUNK_BYTES];
        loop {
            if Instant::now() >= deadline {
                self.bytes_received.fetch_add(body.len() as u64, Ordering::Relaxed);
                return Err((self.too_slow(body.len()), false));
            }
            match response.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => body.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.bytes_received.fetch_add(body.len() as u64, Ordering::Relaxed);
                    return Err(
                        if e.kind() == std::io::ErrorKind::TimedOut || Instant::now() >= deadline {
                            (self.too_slow(body.len()), false)
                        } else {
                            (format!("the answer broke off: {e}"), true)
                        },
                    );
                }
            }
            if body.len() as u64 > MAX_ANSWER_BYTES {
                self.bytes_received.fetch_add(body.len() as u64, Ordering::Relaxed);
                return Err((
                    format!(
                        "the answer is larger than {} MiB: shorten the window or raise step_seconds",
                        MAX_ANSWER_BYTES >> 20
                    ),
                    false,
                ));
            }
        }
        self.bytes_received.fetch_add(body.len() as u64, Ordering::Relaxed);
        Ok(body)
    }
}

/// reqwest's message without the URL it puts in (the URL may carry a password).
fn without_url(e: &reqwest::Error) -> String {
    let mut source: Option<&dyn std::error::Error> = std::error::Error::source(e);
    let mut last = None;
    while let Some(s) = source {
        last = Some(s.to_string());
        source = s.source();
    }
    last.unwrap_or_else(|| "an unknown error".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_never_show() {
        assert_eq!(
            shown_url("https://user:s3cret@prom.example:9090/thanos/"),
            "https://prom.example:9090/thanos"
        );
        assert_eq!(shown_url("http://127.0.0.1:9090"), "http://127.0.0.1:9090");
    }

    /// A body that gives a byte every 20 ms, for ever.
    struct Drip;

    impl Read for Drip {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            std::thread::sleep(Duration::from_millis(20));
            buf[0] = b' ';
            Ok(1)
        }
    }

    #[test]
    fn a_dripping_body_is_given_up_at_the_deadline() {
        let client = PrometheusClient::connect(&PrometheusSource::at("http://127.0.0.1:9")).expect("client");
        let started = Instant::now();
        let (message, retry) = client
            .read_body(Drip, started + Duration::from_millis(200))
            .expect_err("never ends");
        assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
        assert!(message.starts_with("no answer within "), "{message}");
        assert!(message.contains("bytes of it had come"), "{message}");
        assert!(!retry);
        assert!(client.bytes_received() > 0);
    }

    #[test]
    fn an_unset_token_variable_is_named_not_guessed() {
        let mut source = PrometheusSource::at("http://127.0.0.1:9");
        source.token_env = Some("GPUPLAN_TEST_TOKEN_THAT_IS_NOT_SET".to_string());
        let err = PrometheusClient::connect(&source).err().expect("refused");
        assert!(err.to_string().contains("GPUPLAN_TEST_TOKEN_THAT_IS_NOT_SET"), "{err}");
    }
}
