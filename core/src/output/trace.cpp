#include "paraplan/trace.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/pipeline_model.hpp"
#include "model/rules.hpp"
#include "model/stage_split.hpp"

namespace paraplan {
namespace {

// One forward or backward of one virtual chunk of one micro-batch on one stage.
struct Op {
  bool backward = false;
  int64_t chunk = 0;
  int64_t micro_batch = 0;
  double start_s = -1;
  double end_s = -1;
};

// Megatron-LM's order of forward and backward chunk passes on stage `i`
// (schedules.py: warm-up forwards, then one forward one backward, then cool-down backwards).
std::vector<Op> stage_order(int64_t i, int64_t p, int64_t v, int64_t m) {
  const int64_t total = m * v;
  const int64_t warmup =
      v == 1 ? std::min(p - i - 1, m)
             : std::min(static_cast<int64_t>(detail::interleaved_warmup_chunks(i, p, v)), total);
  // The k-th forward (backward) pass of the stage: chunks cycle every p micro-batches.
  const auto nth = [&](int64_t k, bool backward) {
    const int64_t group = k / (p * v), within = k % (p * v);
    int64_t chunk = within / p;
    if (backward) chunk = v - 1 - chunk;
    return Op{backward, chunk, group * p + within % p};
  };
  std::vector<Op> order;
  int64_t forwards = 0, backwards = 0;
  for (; forwards < warmup; ++forwards) order.push_back(nth(forwards, false));
  while (forwards < total) {
    order.push_back(nth(forwards++, false));
    order.push_back(nth(backwards++, true));
  }
  while (backwards < total) order.push_back(nth(backwards++, true));
  return order;
}

nlohmann::json slice(const std::string& name, int64_t stage, int thread, double start_s,
                     double duration_s, nlohmann::json args = nlohmann::json::object()) {
  return {{"name", name},           {"ph", "X"},           {"pid", stage},
          {"tid", thread},          {"ts", start_s * 1e6}, {"dur", duration_s * 1e6},
          {"args", std::move(args)}};
}

// Passes simulated at most (forward and backward of every chunk, micro-batch and stage; 40
// bytes each): a longer iteration is simulated for its first micro-batches only, and
// otherData's simulated_micro_batches says how many.
constexpr int64_t kMaxPasses = 1'000'000;
// Passes drawn at most: beyond them the steady state in the middle is not drawn, one slice per
// stage ("steady state, not drawn", args.elided) stands for it and otherData.elided says where.
constexpr int64_t kMaxDrawnPasses = 10'000;

// The part of the timeline left out of the drawing: [from_s, to_s); empty when from_s >= to_s.
struct Window {
  double from_s = 0;
  double to_s = 0;
  bool cuts(double start_s, double end_s) const {
    return from_s < to_s && end_s > from_s && start_s < to_s;
  }
};

// Pushes the slice [start_s, end_s) without its part inside `window`; returns that part's length.
double push_outside(nlohmann::json& events, const Window& window, const std::string& name,
                    int64_t stage, int thread, double start_s, double end_s,
                    const nlohmann::json& args = nlohmann::json::object()) {
  if (!window.cuts(start_s, end_s)) {
    events.push_back(slice(name, stage, thread, start_s, end_s - start_s, args));
    return 0;
  }
  if (start_s < window.from_s) {
    events.push_back(slice(name, stage, thread, start_s, window.from_s - start_s, args));
  }
  if (end_s > window.to_s) {
    events.push_back(slice(name, stage, thread, window.to_s, end_s - window.to_s, args));
  }
  return std::min(end_s, window.to_s) - std::max(start_s, window.from_s);
}

// The steady state left out when the stages have more than kMaxDrawnPasses passes in all: from
// the time every stage has drawn its first `keep` passes to the time each has `keep` left.
Window elided_window(const std::vector<std::vector<Op>>& orders) {
  const int64_t p = static_cast<int64_t>(orders.size());
  const size_t passes = orders.front().size();
  const size_t keep = static_cast<size_t>(std::max<int64_t>(1, kMaxDrawnPasses / (2 * p)));
  if (static_cast<int64_t>(passes) * p <= kMaxDrawnPasses || passes <= 2 * keep) return {};
  Window window{0, std::numeric_limits<double>::infinity()};
  for (const std::vector<Op>& order : orders) {
    window.from_s = std::max(window.from_s, order[keep].start_s);
    window.to_s = std::min(window.to_s, order[passes - keep - 1].end_s);
  }
  return window.from_s < window.to_s ? window : Window{};
}

// Each chunk's share of its stage's time: its layers (and the embedding and loss where the
// even split counts them as layers), as the model and the layout flag place them.
std::vector<std::vector<double>> chunk_shares(const Report& report, int64_t p, int64_t v) {
  std::vector<std::vector<double>> shares(static_cast<size_t>(p));
  std::vector<int64_t> layers;
  for (const StageReport& stage : report.stages) layers.push_back(stage.layers);
  int64_t total = 0;
  for (const int64_t l : layers) total += l;
  const int64_t accounted = detail::accounted_edges(total, p, v);
  const bool even = accounted >= 0 && layers == detail::standard_split(total, p, v);
  for (int64_t i = 0; i < p; ++i) {
    const bool embedding = even && accounted == 2 && i == 0;
    const bool loss = even && accounted >= 1 && i + 1 == p;
    const int64_t stage_layers = layers[static_cast<size_t>(i)];
    const std::vector<int64_t> chunks = detail::chunk_layers(stage_layers, v, embedding, loss);
    const double units = static_cast<double>(stage_layers + embedding + loss);
    for (int64_t c = 0; c < v; ++c) {
      const int64_t chunk_units =
          chunks[static_cast<size_t>(c)] + (c == 0 && embedding) + (c + 1 == v && loss);
      shares[static_cast<size_t>(i)].push_back(units > 0 ? static_cast<double>(chunk_units) / units
                                                         : 1.0 / static_cast<double>(v));
    }
  }
  return shares;
}

// The passes of every stage in Megatron-LM's order, each started as soon as its input has arrived
// and its stage is free: their start_s and end_s, and when the last stage is free.
struct Simulation {
  std::vector<std::vector<Op>> orders;
  double pipeline_end_s = 0;
};
Simulation simulate_passes(const Report& report, const std::vector<std::vector<double>>& shares,
                           int64_t p, int64_t v, int64_t m) {
  std::vector<std::vector<Op>> orders(static_cast<size_t>(p));
  for (int64_t i = 0; i < p; ++i) orders[static_cast<size_t>(i)] = stage_order(i, p, v, m);
  // end_s of each pass, indexed [stage][backward][chunk][micro_batch].
  const auto index = [&](bool backward, int64_t chunk, int64_t mb) {
    return (static_cast<size_t>(backward) * static_cast<size_t>(v) + static_cast<size_t>(chunk)) *
               static_cast<size_t>(m) +
           static_cast<size_t>(mb);
  };
  std::vector<std::vector<double>> done(static_cast<size_t>(p),
                                        std::vector<double>(2 * v * m, -1.0));
  const auto send_s = [&](int64_t stage) {
    return report.stages[static_cast<size_t>(stage)].pp_comm_s / static_cast<double>(2 * v);
  };
  // When the input of a pass arrives (< 0: not yet computed): from the previous stage
  // (forward) or the next (backward), wrapping between the last and first stage across
  // virtual chunks.
  const auto arrival = [&](int64_t from, bool backward, int64_t chunk, int64_t mb) {
    const double end = done[from][index(backward, chunk, mb)];
    return end < 0 ? -1.0 : end + send_s(from);
  };
  const auto ready_s = [&](int64_t i, const Op& op) -> double {
    if (!op.backward) {
      if (i > 0) return arrival(i - 1, false, op.chunk, op.micro_batch);
      if (op.chunk > 0) return arrival(p - 1, false, op.chunk - 1, op.micro_batch);
      return 0;
    }
    if (i + 1 < p) return arrival(i + 1, true, op.chunk, op.micro_batch);
    if (op.chunk + 1 < v) return arrival(0, true, op.chunk + 1, op.micro_batch);
    return done[i][index(false, op.chunk, op.micro_batch)];  // the last chunk turns around
  };

  // Schedule passes in order on every stage as soon as their inputs are ready.
  std::vector<size_t> next(static_cast<size_t>(p), 0);
  std::vector<double> free_s(static_cast<size_t>(p), 0);
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (int64_t i = 0; i < p; ++i) {
      std::vector<Op>& order = orders[static_cast<size_t>(i)];
      while (next[i] < order.size()) {
        Op& op = order[next[i]];
        const double ready = ready_s(i, op);
        if (ready < 0) break;  // waiting for another stage
        const StageReport& stage = report.stages[static_cast<size_t>(i)];
        const double duration = (op.backward ? stage.backward_s : stage.forward_s) *
                                shares[static_cast<size_t>(i)][static_cast<size_t>(op.chunk)];
        op.start_s = std::max(free_s[i], ready);
        op.end_s = op.start_s + duration;
        // The stage waits for its exposed send (pp_comm_s: blocking in 1F1B, the part not
        // hidden under the next chunk when interleaved), as the estimate charges it in series.
        free_s[i] = op.end_s + send_s(i);
        done[i][index(op.backward, op.chunk, op.micro_batch)] = op.end_s;
        ++next[i];
        progressed = true;
      }
    }
  }
  return {orders, *std::max_element(free_s.begin(), free_s.end())};
}

// Stage `i`'s events: its names, its passes (recompute, compute, sends) and bubbles outside the
// elided window, the window's summary, then the data-parallel sync and the optimizer step.
void emit_stage(nlohmann::json& events, const Report& report, const std::vector<Op>& order,
                const std::vector<double>& stage_shares, int64_t i, int64_t v, double pipeline_end,
                const Window& window, int64_t& elided_micro_batches) {
  const auto send_s = [&](int64_t stage) {
    return report.stages[static_cast<size_t>(stage)].pp_comm_s / static_cast<double>(2 * v);
  };
  const StageReport& stage = report.stages[static_cast<size_t>(i)];
  events.push_back({{"name", "process_name"},
                    {"ph", "M"},
                    {"pid", i},
                    {"args",
                     {{"name", "stage " + std::to_string(i) + " (" + stage.gpu + ", " +
                                   std::to_string(stage.layers) + " layers)"}}}});
  events.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", i},
                    {"tid", 0},
                    {"args", {{"name", "compute"}}}});
  events.push_back({{"name", "thread_name"},
                    {"ph", "M"},
                    {"pid", i},
                    {"tid", 1},
                    {"args", {{"name", "communication"}}}});
  double previous_end = 0;
  double elided_bubble_s = 0;
  int64_t elided_passes = 0;
  for (const Op& op : order) {
    if (op.start_s < 0) continue;
    if (op.start_s > previous_end + 1e-12) {
      elided_bubble_s += push_outside(events, window, "bubble", i, 0, previous_end, op.start_s);
    }
    previous_end = op.end_s + send_s(i);  // the stage waits for its send (simulate_passes)
    if (window.from_s <= op.start_s && op.end_s <= window.to_s) {
      ++elided_passes;
      if (i == 0 && !op.backward && op.chunk == 0) ++elided_micro_batches;
      if (op.end_s + send_s(i) <= window.to_s) continue;  // nothing of it is drawn
    }
    const nlohmann::json args = {{"micro_batch", op.micro_batch}, {"chunk", op.chunk}};
    const double recompute =
        op.backward ? stage.recompute_s * stage_shares[static_cast<size_t>(op.chunk)] : 0;
    if (recompute > 0) {
      push_outside(events, window, "recompute", i, 0, op.start_s, op.start_s + recompute, args);
    }
    push_outside(events, window,
                 std::string(op.backward ? "backward" : "forward") + " mb" +
                     std::to_string(op.micro_batch) +
                     (v > 1 ? " c" + std::to_string(op.chunk) : ""),
                 i, 0, op.start_s + recompute, op.end_s, args);
    if (send_s(i) > 0) {
      push_outside(events, window, op.backward ? "send gradient" : "send activation", i, 1,
                   op.end_s, op.end_s + send_s(i), args);
    }
  }
  if (pipeline_end > previous_end + 1e-12) {
    elided_bubble_s += push_outside(events, window, "bubble", i, 0, previous_end, pipeline_end);
  }
  if (window.from_s < window.to_s) {
    events.push_back(
        slice("steady state, not drawn", i, 0, window.from_s, window.to_s - window.from_s,
              {{"elided", true}, {"passes", elided_passes}, {"bubble_s", elided_bubble_s}}));
  }
  double t = pipeline_end;
  if (stage.dp_comm_exposed_s > 0) {
    events.push_back(slice("data-parallel sync", i, 1, t, stage.dp_comm_exposed_s));
    t += stage.dp_comm_exposed_s;
  }
  events.push_back(slice("optimizer", i, 0, t, stage.optimizer_s));
}

}  // namespace

nlohmann::json schedule_trace(const Strategy& s, const Report& report) {
  const int64_t p = static_cast<int64_t>(report.stages.size());
  const int64_t v = s.virtual_pipeline_model_parallel_size;
  const int64_t all_micro_batches = std::max<int64_t>(1, report.num_micro_batches);
  const int64_t m =
      std::clamp<int64_t>(kMaxPasses / std::max<int64_t>(1, 2 * p * v), 1, all_micro_batches);
  nlohmann::json events = nlohmann::json::array();
  if (p == 0) return {{"traceEvents", events}, {"displayTimeUnit", "ms"}};

  const std::vector<std::vector<double>> shares = chunk_shares(report, p, v);

  const Simulation simulation = simulate_passes(report, shares, p, v, m);
  const std::vector<std::vector<Op>>& orders = simulation.orders;

  const double pipeline_end = simulation.pipeline_end_s;
  const Window window = elided_window(orders);
  int64_t elided_micro_batches = 0;
  for (int64_t i = 0; i < p; ++i) {
    emit_stage(events, report, orders[static_cast<size_t>(i)], shares[static_cast<size_t>(i)], i, v,
               pipeline_end, window, elided_micro_batches);
  }
  const nlohmann::json elided = window.from_s < window.to_s
                                    ? nlohmann::json{{"from_s", window.from_s},
                                                     {"to_s", window.to_s},
                                                     {"micro_batches", elided_micro_batches}}
                                    : nlohmann::json(nullptr);
  return {{"traceEvents", events},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"iteration_time_s", report.iteration_time_s},
            {"simulated_pipeline_s", pipeline_end},
            {"micro_batches", all_micro_batches},
            {"simulated_micro_batches", m},
            {"elided", elided},
            {"virtual_stages", v}}}};
}

}  // namespace paraplan
