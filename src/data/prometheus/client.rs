//! HTTP to a Prometheus-compatible server: timeouts, a bounded retry with backoff for answers
//! that may pass (connection refused or reset, 429, 502, 503, 504), a cap on the size of an
//! answer, and messages that name the server, the HTTP status or the PromQL error. A bearer
//! token is read from the environment variable the settings name and never printed.

use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::data::prometheus::response::{Matrix, ResponseError, parse_labels, parse_matrix};
use crate::model::plan::PrometheusSource;

/// Tries of one request, the first included.
const ATTEMPTS: u32 = 3;
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// Answers are per cluster and step: far smaller than this unless the server misbehaves.
const MAX_ANSWER_BYTES: u64 = 256 * 1024 * 1024;

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

    fn post(&self, path: &str, form: &[(&str, String)]) -> Result<Vec<u8>, PrometheusError> {
        let mut backoff = FIRST_BACKOFF;
        let mut attempt = 1;
        loop {
            match self.post_once(path, form) {
                Ok(body) => return Ok(body),
                Err((_, true)) if attempt < ATTEMPTS => {
                    std::thread::sleep(backoff);
                    backoff *= 2;
                    attempt += 1;
                }
                Err((message, retry)) => {
                    let tries = if retry {
                        format!(" (after {attempt} tries)")
                    } else {
                        String::new()
                    };
                    return Err(self.fail(format!("{message}{tries}")));
                }
            }
        }
    }

    /// One request: the body, or why not and whether trying again may help.
    fn post_once(&self, path: &str, form: &[(&str, String)]) -> Result<Vec<u8>, (String, bool)> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let mut request = self.http.post(format!("{}{path}", self.base)).form(form);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request.send().map_err(|e| {
            if e.is_timeout() {
                (
                    format!("no answer within {} s (timeout_seconds)", self.timeout.as_secs()),
                    false,
                )
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
        let mut body = Vec::new();
        let read = response
            .take(MAX_ANSWER_BYTES + 1)
            .read_to_end(&mut body)
            .map_err(|e| (format!("the answer broke off: {e}"), true))?;
        self.bytes_received.fetch_add(read as u64, Ordering::Relaxed);
        if read as u64 > MAX_ANSWER_BYTES {
            return Err((
                format!(
                    "the answer is larger than {} MiB: shorten the window or raise step_seconds",
                    MAX_ANSWER_BYTES >> 20
                ),
                false,
            ));
        }
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

    #[test]
    fn an_unset_token_variable_is_named_not_guessed() {
        let mut source = PrometheusSource::at("http://127.0.0.1:9");
        source.token_env = Some("GPUPLAN_TEST_TOKEN_THAT_IS_NOT_SET".to_string());
        let err = PrometheusClient::connect(&source).err().expect("refused");
        assert!(err.to_string().contains("GPUPLAN_TEST_TOKEN_THAT_IS_NOT_SET"), "{err}");
    }
}
