use super::patterns::{Pattern, glob_match, nfa_match};
use super::*;
use std::time::{Duration, Instant};

#[test]
fn expands_slurm_lists_with_padding() {
    let cases = [
        ("gpu001", "gpu001"),
        ("gpu[001-004,010]", "gpu001 gpu002 gpu003 gpu004 gpu010"),
        ("a[1-2]-b[3-4]", "a1-b3 a1-b4 a2-b3 a2-b4"),
        ("gpu[01-02],cpu05,node[7,9-10]", "gpu01 gpu02 cpu05 node7 node9 node10"),
        ("gpu[8-11]", "gpu8 gpu9 gpu10 gpu11"),
        ("gpu[08-11]", "gpu08 gpu09 gpu10 gpu11"),
        ("n[099-100] m[9-010]", "n099 n100 m9 m10"),
        (" x1\t[0]y\n", "x1 0y"),
        ("None Assigned", ""),
        ("None assigned", ""),
        ("(null)", ""),
        (" , ", ""),
    ];
    for (list, want) in cases {
        assert_eq!(
            expand_hostlist(list, 20).map(|h| h.join(" ")).as_deref(),
            Ok(want),
            "{list}"
        );
    }
}

#[test]
fn errors_say_what_was_expected_and_where() {
    // `…` stands for "expected a digit, '-', ',' or ']' inside brackets".
    let cases = [
        ("gpu[1-2", "unclosed '[' at offset 3: expected a matching ']'"),
        ("a,gpu[1,", "unclosed '[' at offset 5: expected a matching ']'"),
        ("né[1-", "unclosed '[' at offset 2: expected a matching ']'"), // characters, not bytes
        ("gpu1-2]", "unexpected ']' at offset 6: expected a '[' before it"),
        ("gpu[1-[2]]", "nested '[' at offset 6: …"),
        ("gpu[]", "empty range at offset 4: expected a number or lo-hi"),
        ("gpu[1,,2]", "empty range at offset 6: expected a number or lo-hi"),
        ("gpu[1,]", "empty range at offset 6: expected a number or lo-hi"),
        ("gpu[1,5-3]", "reversed range 5-3 at offset 6: expected lo <= hi"),
        ("gpu[1-a]", "unexpected 'a' at offset 6: …"),
        ("gpu[1-2-3]", "unexpected '-' at offset 7: …"),
        ("gpu[1 ,2]", "unexpected ' ' at offset 5: …"),
        ("gpu[3-]", "unexpected ']' at offset 6: …"),
        (
            "n[1234567890123456789]",
            "number too long at offset 2: expected at most 18 digits",
        ),
        ("a,b[1-9]", "host list too large at offset 2: expected at most 5 hosts"),
    ];
    for (list, want) in cases {
        let want = want.replace('…', "expected a digit, '-', ',' or ']' inside brackets");
        assert_eq!(expand_hostlist(list, 5).map_err(|e| e.to_string()), Err(want), "{list}");
    }
    let non_digit = HostlistError::NonDigit { offset: 2, found: '*' };
    assert_eq!(validate_host_pattern("n[*]"), Err(non_digit));
    assert_eq!(
        expand_hostlist("g[[1]]", 5),
        Err(HostlistError::NestedBracket { offset: 2 })
    );
    assert_eq!(validate_host_pattern(" , "), Err(HostlistError::EmptyPattern));
    assert_eq!(validate_host_pattern("dgx[001-016],rack[1-2]-*"), Ok(()));
    assert!(expand_hostlist("n[123456789012345678]", 1).is_ok());
}

#[test]
fn max_hosts_is_checked_before_allocating() {
    let (start, all) = (Instant::now(), usize::MAX);
    let too_many = |offset, max| Err(HostlistError::TooManyHosts { offset, max });
    assert_eq!(expand_hostlist("n[0-99999999999]", 1_000_000), too_many(0, 1_000_000));
    assert_eq!(
        expand_hostlist(&"n[0-999999999999999999]".repeat(40), all),
        too_many(0, all)
    );
    let wide = format!("n[{}1]", "1-999999999999999999,".repeat(30));
    assert_eq!(expand_hostlist(&wide, all), too_many(0, all));
    assert!(start.elapsed() < Duration::from_secs(1), "took {:?}", start.elapsed());
    assert_eq!(expand_hostlist("gpu[1-4]", 4).map(|h| h.len()), Ok(4));
    assert_eq!(expand_hostlist("gpu[1-4]", 3), too_many(0, 3));
    assert_eq!(expand_hostlist("a,b,c[1-2]", 3), too_many(4, 3));
}

/// One case per line: a pattern, then hosts; `!` marks a host that must not match.
const MATCH_CASES: &str = "
    dgx[001-016] dgx007 dgx016 DGX001 !dgx7 !dgx0007 !dgx017 !dgx000
    gpu[8-11] gpu8 gpu10 !gpu08 !gpu12 !gpu7
    gpu[08-11] gpu08 !gpu8
    n[098-101] n100 n099 !n0100 !n97 !n98
    n[0-99999999999] n12345678901 n0 !n123456789012 !n00
    a[1-2]-b[3-4] a2-b3 !a3-b3 !a1-b5
    x[1-2][0-9] x19 x20 !x1 !x30
    gpu[01-02],cpu05,node[7,9-10] cpu05 node10 gpu02 !node8 !cpu5
    gpu001 gpu001 !gpu0011 !gpu00
    rack[1-2]-* rack1-node05 rack2- !rack3-node05
    gpu-?? gpu-ab !gpu-abc !gpu-a
    * anything
    *[1-3] node2 3 !node4
    *[10-15] x12 12 !x9 !x16
    GPU[01-02] gpu01 Gpu02
    DgX0? dGx01
    gpu00[1-2] gpu001.cluster.example.com GPU002.Cluster.Example.com:9400 !gpu003.cluster.example.com
    *.example.com gpu001.cluster.example.com
    gpu001 gpu001:9400 !gpu001:94x0
    10.0.0.* 10.0.0.5:9400
    10 !10.0.0.5:9400
    fe80::1 [fe80::1]:9400 fe80::1
    gpu !.gpu
";

#[test]
fn matches_ranges_globs_fqdn_and_ports() {
    for line in MATCH_CASES.lines().filter(|l| !l.trim().is_empty()) {
        let mut words = line.split_whitespace();
        let pattern = words.next().unwrap_or_default();
        assert_eq!(validate_host_pattern(pattern), Ok(()), "{pattern}");
        for host in words {
            let (want, host) = host.strip_prefix('!').map_or((true, host), |h| (false, h));
            assert_eq!(host_matches(pattern, host), want, "{pattern} vs {host}");
        }
    }
    assert!(host_matches("**", "") && host_matches("gpu001", " gpu001 "));
    assert!(
        !host_matches("", "") && !host_matches("gpu[1-", "gpu1"),
        "bad patterns match nothing"
    );
}

#[test]
fn cluster_of_respects_order() {
    let owned = |c: &str, ps: &[&str]| (c.to_string(), ps.iter().map(|p| p.to_string()).collect());
    let a100 = owned("a100", &["dgx[001-016]", "gpu-a-*"]);
    let hp = HostPatterns::new(vec![a100, owned("h100", &["dgx[010-032]"])]).expect("valid");
    assert_eq!(hp.cluster_of("dgx012"), Some("a100"), "overlap: first cluster wins");
    assert_eq!(hp.cluster_of("dgx020.site.org:9400"), Some("h100"));
    assert_eq!(hp.cluster_of("GPU-A-7"), Some("a100"));
    assert_eq!(hp.cluster_of("dgx033"), None);
    assert_eq!(HostPatterns::default().cluster_of("x"), None);
    let bad = HostPatterns::new(vec![owned("ok", &["a*"]), owned("h100", &["dgx1", "dgx[5-3]", "x[1-"])]);
    let want = "cluster \"h100\", pattern \"dgx[5-3]\": reversed range 5-3 at offset 4: expected lo <= hi";
    assert_eq!(bad.map_err(|e| e.to_string()).err().as_deref(), Some(want));
}

#[test]
fn no_exponential_backtracking() {
    let (a, start) = ("a".repeat(5000), Instant::now());
    assert!(!host_matches("*a*a*a*a*a*a*a*a*a*a*b", &a));
    assert!(host_matches("*a*a*a*a*a*a*a*a*a*a*b", &format!("{a}b")));
    assert!(!host_matches("*a*a*a*a*a*a*a*a*a*a*[1-2]", &a));
    assert!(host_matches("*a*a*a*a*a*a*a*a*a*a*[1-2]", &format!("{a}2")));
    assert!(host_matches("n*[1-2]", &format!("n{}", "1".repeat(5000))));
    assert!(!host_matches("*?*?*?*?*[0-999999999999999999]x", &"9".repeat(5000)));
    assert!(start.elapsed() < Duration::from_secs(1), "took {:?}", start.elapsed());
}

/// Deterministic xorshift64 generator: no crates, same data on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

#[test]
fn two_pointer_and_nfa_agree_with_naive_glob() {
    fn naive(p: &[char], h: &[char]) -> bool {
        match (p.split_first(), h.split_first()) {
            (None, _) => h.is_empty(),
            (Some(('*', rest)), _) => (0..=h.len()).any(|k| naive(rest, &h[k..])),
            (Some((&c, rest)), Some((&x, hr))) => (c == '?' || c == x) && naive(rest, hr),
            (Some(_), None) => false,
        }
    }
    let mut rng = Rng(7);
    for _ in 0..5000 {
        let p: Vec<char> = (0..rng.below(8)).map(|_| rng.pick(&['a', 'b', '*', '?'])).collect();
        let h: Vec<char> = (0..rng.below(9)).map(|_| rng.pick(&['a', 'b'])).collect();
        let Ok(pattern) = Pattern::compile(&p.iter().collect::<String>()) else {
            continue;
        };
        let want = naive(&p, &h);
        assert_eq!(glob_match(&pattern.names[0], &h), want, "{p:?} vs {h:?}");
        assert_eq!(nfa_match(&pattern.names[0], &h), want, "{p:?} vs {h:?}");
    }
}

/// Random lists of 1-3 names with 1-2 groups of 1-4 disjoint, randomly padded ranges each: every expanded
/// host matches the list as a pattern; a host one past (or before) a range, or unpadded, does not.
#[test]
fn property_expanded_hosts_match_and_neighbours_do_not() {
    let mut rng = Rng(42);
    for round in 0..300 {
        let (mut list, mut want_count, mut outsiders) = (Vec::new(), 0, Vec::new());
        for idx in 0..=rng.below(2) {
            // A distinct letter per name, so no name can match another name's hosts.
            let mut lits = vec![format!(
                "{}{}",
                rng.pick(&["gpu", "node", "dgx-", "Rack"]),
                char::from(b'a' + idx as u8)
            )];
            let (mut text, mut firsts, mut outs, mut count) = (lits[0].clone(), Vec::new(), Vec::new(), 1);
            for _ in 0..=rng.below(1) {
                let (mut next_lo, mut elems, mut n, mut out) = (rng.below(30), Vec::new(), 0, Vec::new());
                for k in 0..=rng.below(3) {
                    let lo = next_lo + rng.below(5);
                    let (hi, w) = (lo + rng.below(12), digits(lo) + rng.below(3) as usize);
                    elems.push(format!("{lo:0w$}") + &if hi > lo { format!("-{hi}") } else { String::new() });
                    if k == 0 {
                        firsts.push(format!("{lo:0w$}"));
                        out.extend((lo > 0).then(|| format!("{:0w$}", lo - 1)));
                        out.extend((w > digits(lo)).then(|| lo.to_string())); // padding dropped
                    }
                    (n, next_lo) = (n + hi - lo + 1, hi + 2); // the gap keeps hi + 1 outside every range
                    out.push(format!("{:0w$}", hi + 1));
                }
                let lit = rng.pick(&["-", "x", ".sfx", "-r"]);
                text += &format!("[{}]{lit}", elems.join(","));
                count *= n;
                lits.push(lit.to_string());
                outs.push(out);
            }
            want_count += count;
            list.push(text);
            // An outsider: every group at its first value except group `g`, spelled `o`.
            for (g, out) in outs.iter().enumerate() {
                for o in out {
                    let mut host = lits[0].clone();
                    for (i, lit) in lits[1..].iter().enumerate() {
                        host += if i == g { o } else { &firsts[i] };
                        host += lit;
                    }
                    outsiders.push(host);
                }
            }
        }
        let list = list.join(",");
        let hosts = expand_hostlist(&list, 100_000).unwrap_or_else(|e| panic!("{list}: {e}"));
        assert_eq!(hosts.len() as u64, want_count, "{list}");
        for host in &hosts {
            let shown = [host.to_ascii_uppercase(), format!("{host}:9400")][round % 2].clone();
            assert!(host_matches(&list, &shown), "{list} should match {shown}");
        }
        for host in &outsiders {
            assert!(!host_matches(&list, host), "{list} must not match {host}");
        }
    }
}
