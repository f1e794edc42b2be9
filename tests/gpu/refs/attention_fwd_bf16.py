"""Independent reference for stdlib/attention_fwd_bf16.kina: per head b,
out[b] = softmax(q[b] @ k[b].T / sqrt(D)) @ v[b] (the causal kernels keep
key j <= query i), in float64 from the BF16 inputs, one full softmax (no
online rescaling), so it shares no algorithm with the kernel."""
import numpy as np


def _attention(q, k, v, causal):
    q, k, v = (x.astype(np.float64) for x in (q, k, v))
    d = q.shape[-1]
    s = np.einsum("bqd,bkd->bqk", q, k) / np.sqrt(d)
    if causal:
        n = s.shape[-1]
        keep = np.arange(n)[None, :] <= np.arange(n)[:, None]
        s = np.where(keep[None], s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    return np.einsum("bqk,bkd->bqd", p, v)


def attention_fwd_bf16_d64(dims, q, k, v):
    return _attention(q, k, v, False)


def attention_fwd_bf16_d128(dims, q, k, v):
    return _attention(q, k, v, False)


def attention_fwd_causal_bf16_d64(dims, q, k, v):
    return _attention(q, k, v, True)


def attention_fwd_causal_bf16_d128(dims, q, k, v):
    return _attention(q, k, v, True)


def attention_fwd_bf16_d128_w8(dims, q, k, v):
    """bench/attention/variants/attention_fwd_bf16_d128_w8.kina (compare_ref.py
    --module attention_fwd_bf16)."""
    return _attention(q, k, v, False)


def attention_fwd_causal_bf16_d128_w32n32(dims, q, k, v):
    """bench/attention/variants/attention_fwd_causal_bf16_d128_w32n32.kina
    (compare_ref.py --module attention_fwd_bf16)."""
    return _attention(q, k, v, True)


def attention_fwd_bf16_d128_n32(dims, q, k, v):
    """bench/attention/variants/attention_fwd_bf16_d128_n32.kina (compare_ref.py
    --module attention_fwd_bf16)."""
    return _attention(q, k, v, False)


def attention_fwd_causal_bf16_d64_w32(dims, q, k, v):
    """bench/attention/variants/attention_fwd_causal_bf16_d64_w32.kina
    (compare_ref.py --module attention_fwd_bf16)."""
    return _attention(q, k, v, True)
