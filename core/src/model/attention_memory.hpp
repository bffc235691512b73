// Attention memory beyond what a layer saves for its backward (docs/model.md, "Memory per GPU").
#pragma once

namespace paraplan::detail {

// What Transformer Engine's ring attention (AttnFuncWithCPAndKVP2P, context_parallel.py at
// d0067d0, Megatron-LM's cp_comm_type p2p) holds while one layer's attention runs, beyond the
// Q, K, V and output it keeps, on the CP rank that holds the most (the last: every step's queries
// whole under the causal mask), over `cp` ranks. Forward: the ring's receive buffers,
// `p2p_comm_buffers[i + 1] = torch.empty_like(p2p_comm_buffers[i])`, one K+V chunk per step, all
// listed until the forward returns (the last is the K, V it saves), and every step's partial
// output `out_per_step[i]`, merged into the output only after the loop. Backward: the fp16 dQ
// accumulator (`dq_buffer = torch.empty_like(q)`), two send/receive buffers of K+V and dK+dV
// (`p2p_comm_buffers`, [2, *kv.shape] each) and each step's dQ, dK, dV, of which a plain flash
// backward would make dQ, dK and dV too. The larger of the two. Bytes of this rank's chunk:
// `q_bytes` its queries, `kv_bytes` its keys and values together, `out_bytes` its output.
double ring_attention_transient_bytes(double cp, double q_bytes, double kv_bytes, double out_bytes);

}  // namespace paraplan::detail
