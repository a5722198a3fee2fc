/*
 * The logistic log-likelihood + gradient pass of the core (core/as/likelihood.ts,
 * core/as/family.ts) as plain C, for bench/native_kernel_bench.ts: rows
 * [0, n) of a row-major n × d f64 matrix x, responses y, coefficients theta;
 * grad += Σ (y − σ(η)) x_i and the return value is Σ ℓ_i, with
 *
 *   e = exp(−|η|),  ℓ = yη − max(η, 0) − log1p(e),  σ(η) = 1/(1+e) or e/(1+e).
 *
 * Same arithmetic as the core's kernel; the compiler vectorises what it can
 * (built with gcc -O3 -march=native; the -ffast-math build lets glibc's
 * vector exp/log1p in).
 */
#include <math.h>

double logistic_pass(const double *x, const double *y, int n, int d,
                     const double *theta, double *grad) {
  double total = 0.0;
  for (int i = 0; i < n; i++) {
    const double *row = x + (long)i * d;
    double eta = 0.0;
    for (int j = 0; j < d; j++) eta += row[j] * theta[j];
    double e = exp(-fabs(eta));
    double p = 1.0 / (1.0 + e);
    double sig = eta >= 0.0 ? p : e * p;
    double a = y[i] - sig;
    total += y[i] * eta - (eta > 0.0 ? eta : 0.0) - log1p(e);
    for (int j = 0; j < d; j++) grad[j] += a * row[j];
  }
  return total;
}

/* Four rows per step, as the core's kernel: the exp/log chains of the four
 * rows overlap and one pass over grad adds all four. */
double logistic_pass4(const double *x, const double *y, int n, int d,
                      const double *theta, double *grad) {
  double total = 0.0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    const double *r0 = x + (long)i * d, *r1 = r0 + d, *r2 = r1 + d, *r3 = r2 + d;
    double e0 = 0, e1 = 0, e2 = 0, e3 = 0;
    for (int j = 0; j < d; j++) {
      e0 += r0[j] * theta[j];
      e1 += r1[j] * theta[j];
      e2 += r2[j] * theta[j];
      e3 += r3[j] * theta[j];
    }
    double eta[4] = {e0, e1, e2, e3}, a[4];
    for (int k = 0; k < 4; k++) {
      double e = exp(-fabs(eta[k]));
      double p = 1.0 / (1.0 + e);
      double sig = eta[k] >= 0.0 ? p : e * p;
      a[k] = y[i + k] - sig;
      total += y[i + k] * eta[k] - (eta[k] > 0.0 ? eta[k] : 0.0) - log1p(e);
    }
    for (int j = 0; j < d; j++) {
      grad[j] += a[0] * r0[j] + a[1] * r1[j] + a[2] * r2[j] + a[3] * r3[j];
    }
  }
  if (i < n) total += logistic_pass(x + (long)i * d, y + i, n - i, d, theta, grad);
  return total;
}
