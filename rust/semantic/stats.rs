//! Threshold statistics equal to numpy's: `np.percentile` (method "linear", numpy's lerp),
//! `np.mean` and `np.std` (population, pairwise summation as numpy's `add.reduce` does for
//! contiguous float64), and `np.gradient` over unit spacing.

/// numpy's pairwise summation of a contiguous float64 array (`pairwise_sum` in
/// `loops_utils.h`): fewer than 8 values in order; up to 128 with eight interleaved
/// accumulators; beyond, the two halves (the first a multiple of 8 long) summed recursively.
pub fn pairwise_sum(a: &[f64]) -> f64 {
    const BLOCK: usize = 128;
    let n = a.len();
    if n < 8 {
        // numpy starts this loop from -0.0 so that a sum of negative zeros stays -0.0
        return a.iter().fold(-0.0, |acc, v| acc + v);
    }
    if n <= BLOCK {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let mut i = 8;
        while i < n - n % 8 {
            for (k, acc) in r.iter_mut().enumerate() {
                *acc += a[i + k];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &a[i..] {
            res += v;
        }
        return res;
    }
    let mut n2 = n / 2;
    n2 -= n2 % 8;
    pairwise_sum(&a[..n2]) + pairwise_sum(&a[n2..])
}

/// `np.mean(a)`; NaN for an empty slice.
pub fn mean(a: &[f64]) -> f64 {
    pairwise_sum(a) / a.len() as f64
}

/// `np.std(a)` (population: divides by n).
pub fn std(a: &[f64]) -> f64 {
    let m = mean(a);
    let sq: Vec<f64> = a.iter().map(|v| (v - m) * (v - m)).collect();
    (pairwise_sum(&sq) / a.len() as f64).sqrt()
}

/// `np.percentile(a, q)` with the default linear method, for `0 <= q <= 100`; NaN for an
/// empty slice or NaN data (numpy returns NaN when the data holds one).
pub fn percentile(a: &[f64], q: f64) -> f64 {
    if a.is_empty() || a.iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    let mut sorted = a.to_vec();
    sorted.sort_by(|x, y| x.total_cmp(y));
    let n = sorted.len();
    let q = q / 100.0;
    let virtual_index = (n as f64 - 1.0) * q;
    if virtual_index >= (n - 1) as f64 {
        return sorted[n - 1];
    }
    if virtual_index < 0.0 {
        return sorted[0];
    }
    let previous = virtual_index.floor();
    let gamma = virtual_index - previous;
    let lo = sorted[previous as usize];
    let hi = sorted[(previous as usize + 1).min(n - 1)];
    let diff = hi - lo;
    if gamma >= 0.5 {
        hi - diff * (1.0 - gamma)
    } else {
        lo + diff * gamma
    }
}

/// `np.gradient(a, range(len(a)))` (edge order 1): one-sided differences at the ends, central
/// differences `(a[i+1] - a[i-1]) / 2` inside. Needs at least two values (empty otherwise).
pub fn gradient(a: &[f64]) -> Vec<f64> {
    let n = a.len();
    if n < 2 {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(n);
    out.push(a[1] - a[0]);
    for i in 1..n - 1 {
        out.push((a[i + 1] - a[i - 1]) / 2.0);
    }
    out.push(a[n - 1] - a[n - 2]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_matches_numpy_examples() {
        let a = [10.0, 7.0, 4.0, 3.0, 2.0, 1.0];
        assert_eq!(percentile(&a, 50.0), 3.5);
        assert_eq!(percentile(&a, 0.0), 1.0);
        assert_eq!(percentile(&a, 100.0), 10.0);
        assert!((percentile(&a, 95.0) - 9.25).abs() < 1e-12);
        assert!(percentile(&[], 50.0).is_nan());
    }

    #[test]
    fn mean_std_gradient() {
        let a = [1.0, 2.0, 4.0, 7.0];
        assert_eq!(mean(&a), 3.5);
        assert!((std(&a) - 2.291_287_847_477_92).abs() < 1e-15);
        assert_eq!(gradient(&a), vec![1.0, 1.5, 2.5, 3.0]);
        assert!(gradient(&[1.0]).is_empty());
    }

    #[test]
    fn pairwise_sum_long_input() {
        let a: Vec<f64> = (0..1000).map(|i| i as f64 * 0.1).collect();
        let exact: f64 = (0..1000).map(|i| i as f64).sum::<f64>() * 0.1;
        assert!((pairwise_sum(&a) - exact).abs() < 1e-9);
    }
}
