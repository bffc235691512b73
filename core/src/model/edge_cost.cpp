// The stage edges: the embedding (first stage), the final norm, LM head and loss (last stage),
// and a multi-token-prediction depth.
#include "model/collectives.hpp"
#include "model/cost_builder.hpp"
#include "model/kernels.hpp"

namespace paraplan::detail {

// Vocabulary-parallel embedding: look-up, then a reduction over tensor parallelism.
EdgeCost CostBuilder::embedding() const {
  EdgeCost edge;
  const double n = h_ * norm_tokens_;
  edge.forward.compute_s = kernels_.memory_s(2 * hidden_bytes()) +                // gather rows
                           kernels_.memory_s((2 * e_ + hidden_mask_bytes_) * n);  // dropout
  // Backward: dropout, then the dense weight gradient of the whole table: zero-filled,
  // scattered into, and accumulated into the fp32 main_grad.
  const double table = h_ * padded_vocab() / t_;
  edge.backward.compute_s =
      kernels_.memory_s((2 * e_ + hidden_mask_bytes_) * n) + kernels_.memory_s(e_ * table) +
      kernels_.memory_s(2 * e_ * h_ * tokens_) + kernels_.memory_s((e_ + kMainGradBytes) * table);
  if (s_.tensor_model_parallel_size > 1) {
    edge.forward.tp_comm_s = sequence_parallel_ ? reduce_scatter_s(gpu_, tp_group_, hidden_bytes())
                                                : all_reduce_s(gpu_, tp_group_, hidden_bytes());
    if (sequence_parallel_) {
      edge.backward.tp_comm_s = all_gather_s(gpu_, tp_group_, hidden_bytes());
    }
  }
  edge.activation_bytes = hidden_mask_bytes_ * n;
  // Learned absolute position embeddings (Megatron-LM's default position_embedding_type): a
  // [max_position_embeddings, hidden] table on every tensor-parallel rank (not vocabulary
  // parallel), max_position_embeddings taken as the sequence length.
  const double positions = model_.position_embedding_type == PositionEmbedding::learned_absolute
                               ? h_ * static_cast<double>(training_.seq_length)
                               : 0;
  edge.parameters = table + positions;
  return edge;
}

// Final norm, vocabulary-parallel LM head and cross-entropy in fp32.
EdgeCost CostBuilder::head() const {
  EdgeCost edge;
  const double vocab = padded_vocab() / t_;
  const Gemm logits{tokens_, vocab, h_};
  const double logit_elements = tokens_ * vocab;
  const double norm_elements = h_ * norm_tokens_;
  const double forward_s = kernels16_.gemm_s(logits);
  const double dgrad_s = kernels16_.dgrad_s(logits);
  const double wgrad_s = kernels16_.wgrad_s(logits);
  // Megatron-LM's vocab-parallel cross-entropy in fp32: cast, max, subtract, exp, sum and
  // normalise (six passes, 38 bytes per logit from 16-bit); backward scales the saved
  // softmax and casts it back (14 bytes per logit). With --cross-entropy-loss-fusion
  // (megatron/core/fusions/fused_cross_entropy.py) three fused kernels: the cast with the
  // max (read 2, write 4), subtract and exp with the sum (read 4, write 4), normalise (read
  // 4, write 4); backward one (read the fp32 softmax, write the 16-bit gradient). Transformer
  // Engine's Triton kernel (--cross-entropy-fusion-impl te; transformer_engine/pytorch/triton/
  // cross_entropy.py) reads the logits once forward (online softmax; the loss kernel reads only
  // the target's logit) and backward writes the gradient into them in place.
  const double cast_bytes = e_ < 4 ? e_ + 4 : 0;
  const bool te_loss =
      s_.cross_entropy_loss_fusion && s_.cross_entropy_fusion_impl == CrossEntropyFusionImpl::te;
  edge.forward.compute_s = kernels_.memory_s(2 * e_ * norm_elements) + forward_s;
  edge.backward.compute_s = kernels_.memory_s(3 * e_ * norm_elements) + dgrad_s + wgrad_s;
  if (te_loss) {
    edge.forward.compute_s += kernels_.memory_s(e_ * logit_elements);
    edge.backward.compute_s += kernels_.memory_s(2 * e_ * logit_elements);
  } else if (s_.cross_entropy_loss_fusion) {
    for (const double bytes : {e_ + 4, 8.0, 8.0}) {
      edge.forward.compute_s += kernels_.memory_s(bytes * logit_elements);
    }
    edge.backward.compute_s += kernels_.memory_s((4 + e_) * logit_elements);
  } else {
    for (const double bytes : {cast_bytes, 4.0, 8.0, 8.0, 4.0, 8.0}) {
      edge.forward.compute_s += kernels_.memory_s(bytes * logit_elements);
    }
    edge.backward.compute_s +=
        kernels_.memory_s(8 * logit_elements) + kernels_.memory_s(cast_bytes * logit_elements);
  }
  if (s_.tensor_model_parallel_size > 1) {
    // Three small all-reduces of per-token statistics (max, sum, target logit).
    edge.forward.tp_comm_s = 3 * all_reduce_s(gpu_, tp_group_, 4 * tokens_);
    if (sequence_parallel_) {
      edge.forward.tp_comm_s += all_gather_s(gpu_, tp_group_, hidden_bytes());
    }
    const double input_grad_s = sequence_parallel_
                                    ? reduce_scatter_s(gpu_, tp_group_, hidden_bytes())
                                    : all_reduce_s(gpu_, tp_group_, hidden_bytes());
    edge.backward.tp_comm_s =
        tp_overlap_exposed_s(input_grad_s, exposed_s(gpu_, input_grad_s, wgrad_s));
  }
  edge.activation_bytes = 2 * e_ * norm_elements;  // norm input, LM-head input
  // Megatron-LM's vocab-parallel cross-entropy casts the 16-bit logits to fp32
  // (tensor_parallel/cross_entropy.py calculate_logits_max: .float()) while they are alive,
  // and keeps the fp32 softmax for the backward, whose 16-bit gradient joins it: 6 bytes per
  // logit from 16-bit training (model-review P9), 4 in fp32. Transformer Engine's kernel keeps
  // only the logits (and 12 bytes of statistics per token).
  edge.transient_bytes = (te_loss ? e_ : e_ < 4 ? e_ + 4 : 4) * logit_elements;
  edge.logit_elements = logit_elements;
  edge.parameters = h_ * vocab + h_;
  edge.forward_flops = logits.flops();
  return edge;
}

// One multi-token-prediction depth besides its transformer layer (Megatron-LM
// multi_token_prediction.py, MultiTokenPredictionLayer): the shifted tokens' embedding, enorm
// and hnorm, eh_proj (2h -> h, column-parallel, its output all-gathered over tensor parallel),
// then the final norm, the shared LM head and the loss again.
EdgeCost CostBuilder::mtp_depth(const EdgeCost& embedding, const EdgeCost& head) const {
  EdgeCost edge;
  edge.forward = embedding.forward;
  edge.backward = embedding.backward;
  edge.forward += head.forward;
  edge.backward += head.backward;
  edge.activation_bytes = embedding.activation_bytes + head.activation_bytes;
  edge.transient_bytes = head.transient_bytes;
  edge.logit_elements = head.logit_elements;
  edge.forward_flops = head.forward_flops;
  const Gemm eh_proj{tokens_, h_ / t_, 2 * h_};
  const LinearTime proj = linear(kernels_, eh_proj);
  edge.forward.compute_s += proj.forward_s;
  edge.backward.compute_s += proj.dgrad_s + proj.wgrad_s;
  const double n = h_ * norm_tokens_;
  edge.forward.compute_s += 2 * kernels_.memory_s(2 * e_ * n);  // enorm, hnorm
  edge.backward.compute_s += 2 * kernels_.memory_s(3 * e_ * n);
  if (s_.tensor_model_parallel_size > 1) {
    // The [tokens, 2h] input gathered under sequence parallelism, the [tokens, h/t] output
    // gathered along the hidden dimension; their backward reduce-scatters.
    const double input = sequence_parallel_ ? all_gather_s(gpu_, tp_group_, 2 * hidden_bytes()) : 0;
    const double output = all_gather_s(gpu_, tp_group_, hidden_bytes());
    edge.forward.tp_comm_s += input + output;
    edge.backward.tp_comm_s += input + output;
  }
  // enorm and hnorm inputs and eh_proj's input.
  edge.activation_bytes += (2 * e_ + 2 * saved_input_bytes_) * n;
  edge.parameters = eh_proj.n * eh_proj.k + 3 * h_;  // eh_proj, enorm, hnorm, final norm
  edge.forward_flops += eh_proj.flops();
  return edge;
}

}  // namespace paraplan::detail
