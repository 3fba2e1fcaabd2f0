// Compiled BM25 search kernel (Node-API addon), the same algorithm as the TypeScript loop in
// src/retrieval/bm25/typescript-kernel.ts: term-at-a-time scoring in blocks of documents, double accumulators, a size-k
// min-heap by (float score, tie key). Every float step mirrors the TypeScript one — the operation in double,
// then rounded to float, as Math.fround does — so scores, sums and ties are bit-identical to the fallback.
// Built with -ffp-contract=off: a fused multiply-add would skip a rounding.
// search() scores one query; searchBatch() scores groups of LANES queries in one pass over their postings
// (searchLanes, below), with the same lists. Build-time overrides for checks: -DLANE_BITS=3 (8 lanes),
// -DLANE_CLONES= (one variant for the -march given instead of one per vector width).
#include <type_traits>
#include <node_api.h>

#include "napi-util.h"

#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr uint32_t TF_BIG = 255;
constexpr int TABLE_TF = 16;
constexpr uint32_t TABLE_CODES = (TABLE_TF + 1) << 8;

// Batched search: LANES queries scored together. Each document of a block holds one double sum per query (a
// 128-byte row), and every term of the queries' union is read once for all of them: a posting's score for each
// query is computed in float lanes (a query without the term has weight 0 there, which adds +0.0: a no-op, as
// no sum is ever -0.0) and added to its row. Each lane's float steps are the scalar ones — a float division and
// subtraction give the same float as the double operation rounded to float (double has more than twice float's
// precision) — and each query still receives its terms in ascending order, so sums are bit-identical to search().
// Per posting that is one vector division and one row update for up to LANES queries, where search() does a
// table lookup and an add per query; the queries of a group share most of their long postings lists (title +
// abstract queries: 16 queries read each posting of their union for 4.3 of them on average, 200 k synthetic
// abstracts).
#ifndef LANE_BITS
#define LANE_BITS 4
#endif
constexpr uint32_t LANES = 1u << LANE_BITS;
typedef float LaneFloats __attribute__((vector_size(4 * LANES)));
typedef double LaneSums __attribute__((vector_size(8 * LANES)));

// One term of a group's union: its postings not yet read, and each query's weight for it (0: not its term).
struct LaneTerm {
  float w[LANES];  // (a plain array: std::vector does not align LaneFloats here)
  size_t cursor;
  size_t end;
  uint32_t term;
  uint32_t laneMask;
};

// Compiled for the machine's vector width where the compiler can choose at load time (an ifunc picks the clone).
#if defined(LANE_CLONES)
#elif defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define LANE_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define LANE_CLONES
#endif

struct View {
  napi_ref ref = nullptr;
  void* data = nullptr;
  size_t length = 0;
};

// A size-k min-heap by (float score, tie key): the root is the worst document kept (top-k-heap.ts, the same
// heap in TypeScript).
struct Heap {
  std::vector<uint32_t> docs;
  std::vector<float> scores;
  uint32_t size = 0;
  uint32_t k = 0;
  const uint32_t* key = nullptr;

  void reset(uint32_t kk) {
    k = kk;
    size = 0;
    if (docs.size() < kk) {
      docs.resize(kk);
      scores.resize(kk);
    }
  }

  bool worse(float sx, uint32_t dx, float sy, uint32_t dy) const {
    if (sx != sy) return sx < sy;
    return key == nullptr ? dx < dy : key[dx] < key[dy];
  }

  // Sums at or below this cannot enter: 0 until the heap is full, then the float just below its minimum.
  double floor() const {
    if (k == 0) return __builtin_inf();
    if (size < k) return 0;
    const float min = scores[0];
    if (!(min > 0)) return -__builtin_inf();
    uint32_t bits;
    std::memcpy(&bits, &min, 4);
    bits--;
    float below;
    std::memcpy(&below, &bits, 4);
    return below;
  }

  void offer(float s, uint32_t d) {
    uint32_t* hd = docs.data();
    float* hs = scores.data();
    if (size < k) {
      uint32_t j = size++;
      while (j > 0) {
        const uint32_t parent = (j - 1) >> 1;
        if (!worse(s, d, hs[parent], hd[parent])) break;
        hd[j] = hd[parent];
        hs[j] = hs[parent];
        j = parent;
      }
      hd[j] = d;
      hs[j] = s;
    } else if (k > 0 && worse(hs[0], hd[0], s, d)) {
      siftDown(s, d);
    }
  }

  void siftDown(float s, uint32_t d) {
    uint32_t* hd = docs.data();
    float* hs = scores.data();
    uint32_t i = 0;
    for (;;) {
      uint32_t c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && worse(hs[c + 1], hd[c + 1], hs[c], hd[c])) c++;
      if (!worse(hs[c], hd[c], s, d)) break;
      hd[i] = hd[c];
      hs[i] = hs[c];
      i = c;
    }
    hd[i] = d;
    hs[i] = s;
  }

  // Empties the heap into docsOut/scoresOut (size entries), best first.
  void drain(uint32_t* docsOut, float* scoresOut) {
    for (int64_t i = static_cast<int64_t>(size) - 1; i >= 0; i--) {
      docsOut[i] = docs[0];
      scoresOut[i] = scores[0];
      size--;
      if (size > 0) siftDown(scores[size], docs[size]);
    }
  }
};

struct Scorer {
  uint32_t docCount = 0;
  double tableMinPostings = 0;
  uint32_t blockDocs = 0;
  View offsets, docs, tfNorms, tfBigPos, tfBigVal, normCache, normInv, member, tieKey;
  std::vector<double> acc;
  std::vector<float> table;
  std::vector<double> cursor;
  std::vector<int32_t> useTable;
  Heap heap;
  // Batched search (searchLanes): one heap per lane, the block's rows of lane sums, the union of the group's
  // terms and, with lossy lengths, 1 + tf·normInverse for every table code.
  Heap lanes[LANES];
  uint32_t laneBlockDocs = 0;
  // The block's rows, 64-byte aligned (posix_memalign; std::vector does not over-align here).
  LaneSums* laneAcc = nullptr;
  std::vector<LaneTerm> laneTerms;
  std::vector<uint64_t> laneEntries;
  std::vector<float> xTab;

  const double* O() const { return static_cast<const double*>(offsets.data); }
  const uint32_t* D() const { return static_cast<const uint32_t*>(docs.data); }
  const uint16_t* T() const { return static_cast<const uint16_t*>(tfNorms.data); }
  const float* cache() const { return static_cast<const float*>(normCache.data); }
  const float* inv() const { return static_cast<const float*>(normInv.data); }
  const uint8_t* M() const { return static_cast<const uint8_t*>(member.data); }
  const uint32_t* key() const { return static_cast<const uint32_t*>(tieKey.data); }

  // Frequency of a posting whose code says "big": binary search of tfBigPos; false when it is missing.
  bool bigTf(double p, double* out) const {
    const double* pos = static_cast<const double*>(tfBigPos.data);
    const uint32_t* val = static_cast<const uint32_t*>(tfBigVal.data);
    int64_t lo = 0, hi = static_cast<int64_t>(tfBigPos.length) - 1;
    while (lo <= hi) {
      const int64_t mid = (lo + hi) >> 1;
      if (pos[mid] == p) {
        *out = val[mid];
        return true;
      }
      if (pos[mid] < p) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  // Returns false when a big frequency is missing from the index (damaged files).
  bool search(const uint32_t* terms, const float* weights, uint32_t nTerms, uint32_t kk, int64_t exclude) {
    const double* offs = O();
    const uint32_t* dd = D();
    const uint16_t* tn = T();
    const float* nc = cache();
    const float* ni = inv();
    const uint8_t* filter = M();
    uint32_t nTables = 0;
    useTable.assign(nTerms, 0);
    if (nc != nullptr) {
      for (uint32_t qi = 0; qi < nTerms; qi++) {
        const uint32_t t = terms[qi];
        if (offs[t + 1] - offs[t] >= tableMinPostings) useTable[qi] = static_cast<int32_t>(++nTables);
      }
      if (table.size() < static_cast<size_t>(nTables) * TABLE_CODES) table.resize(static_cast<size_t>(nTables) * TABLE_CODES);
      for (uint32_t qi = 0; qi < nTerms; qi++) {
        if (!useTable[qi]) continue;
        const double w = weights[qi];
        float* base = table.data() + static_cast<size_t>(useTable[qi] - 1) * TABLE_CODES;
        for (int tf = 1; tf <= TABLE_TF; tf++) {
          float* row = base + (tf << 8);
          for (int nb = 0; nb < 256; nb++) {
            const float x = static_cast<float>(1.0 + static_cast<float>(tf * static_cast<double>(nc[nb])));
            row[nb] = static_cast<float>(w - static_cast<float>(w / x));
          }
        }
      }
    }
    cursor.resize(nTerms);
    for (uint32_t qi = 0; qi < nTerms; qi++) cursor[qi] = offs[terms[qi]];
    heap.reset(kk);
    double* a = acc.data();
    for (uint32_t blockStart = 0; blockStart < docCount; blockStart += blockDocs) {
      const uint32_t blockEnd = docCount - blockStart < blockDocs ? docCount : blockStart + blockDocs;
      for (uint32_t qi = 0; qi < nTerms; qi++) {
        const double w = weights[qi];
        const size_t end = static_cast<size_t>(offs[terms[qi] + 1]);
        size_t p = static_cast<size_t>(cursor[qi]);
        if (nc == nullptr) {
          for (; p < end; p++) {
            const uint32_t d = dd[p];
            if (d >= blockEnd) break;
            if (filter != nullptr && filter[d] == 0) continue;
            double tf = tn[p] >> 8;
            if (tf == TF_BIG && !bigTf(static_cast<double>(p), &tf)) return false;
            const float x = static_cast<float>(1.0 + static_cast<float>(tf * static_cast<double>(ni[d])));
            a[d - blockStart] += static_cast<float>(w - static_cast<float>(w / x));
          }
        } else if (useTable[qi] == 0) {
          for (; p < end; p++) {
            const uint32_t d = dd[p];
            if (d >= blockEnd) break;
            if (filter != nullptr && filter[d] == 0) continue;
            const uint32_t code = tn[p];
            double tf = code >> 8;
            if (tf == TF_BIG && !bigTf(static_cast<double>(p), &tf)) return false;
            const float x = static_cast<float>(1.0 + static_cast<float>(tf * static_cast<double>(nc[code & 255])));
            a[d - blockStart] += static_cast<float>(w - static_cast<float>(w / x));
          }
        } else {
          const float* tab = table.data() + static_cast<size_t>(useTable[qi] - 1) * TABLE_CODES;
          // One loop body, instantiated twice: the unfiltered sweep (the hot loop: two loads, one table read, one
          // add per posting) carries no per-posting filter test.
          auto sweep = [&](auto filtered) -> bool {
            for (; p < end; p++) {
              const uint32_t d = dd[p];
              if (d >= blockEnd) break;
              if constexpr (decltype(filtered)::value) {
                if (filter[d] == 0) continue;
              }
              const uint32_t code = tn[p];
              float s;
              if (code < TABLE_CODES) s = tab[code];
              else {
                double tf = code >> 8;
                if (tf == TF_BIG && !bigTf(static_cast<double>(p), &tf)) return false;
                const float x = static_cast<float>(1.0 + static_cast<float>(tf * static_cast<double>(nc[code & 255])));
                s = static_cast<float>(w - static_cast<float>(w / x));
              }
              a[d - blockStart] += s;
            }
            return true;
          };
          if (!(filter == nullptr ? sweep(std::false_type{}) : sweep(std::true_type{}))) return false;
        }
        cursor[qi] = static_cast<double>(p);
      }
      // Sequential sweep of the block (see typescript-kernel.ts): sums at or below the floor cannot enter the heap.
      const uint32_t len = blockEnd - blockStart;
      double floor = heap.floor();
      for (uint32_t l = 0; l < len; l++) {
        const double v = a[l];
        if (v <= floor) continue;
        const uint32_t d = l + blockStart;
        if (static_cast<int64_t>(d) == exclude) continue;
        heap.offer(static_cast<float>(v), d);
        floor = heap.floor();
      }
      std::memset(a, 0, sizeof(double) * len);
    }
    return true;
  }

  // Scores queries [0, nq) of a group (nq ≤ LANES; query j: counts[j] terms and weights, read in turn) into
  // lanes[j]. Returns false when a big frequency is missing from the index (damaged files).
  bool searchLanes(const uint32_t* terms, const float* weights, const uint32_t* counts, uint32_t nq, uint32_t kk,
                   const double* exclude);
};

// Adds one term's postings in [blockStart, blockEnd) to the block's rows, from its cursor on; false when a big
// frequency is missing. LOSSY: the posting's norm byte (x from xTab below TABLE_CODES); else exact lengths.
template <bool LOSSY, bool FILTERED>
__attribute__((always_inline)) inline bool sweepLaneTerm(const Scorer& s, LaneTerm& lt, LaneSums* acc, uint32_t blockStart,
                                                         uint32_t blockEnd) {
  const uint32_t* dd = s.D();
  const uint16_t* tn = s.T();
  const float* xt = s.xTab.data();
  const float* nc = s.cache();
  const float* ni = s.inv();
  const uint8_t* filter = s.M();
  LaneFloats w;
  std::memcpy(&w, lt.w, sizeof w);
  const size_t end = lt.end;
  size_t p = lt.cursor;
  for (; p < end; p++) {
    const uint32_t d = dd[p];
    if (d >= blockEnd) break;
    if (FILTERED && filter[d] == 0) continue;
    const uint32_t code = tn[p];
    float x;
    if (LOSSY && code < TABLE_CODES) {
      x = xt[code];
    } else {
      double tf = code >> 8;
      if (tf == TF_BIG && !s.bigTf(static_cast<double>(p), &tf)) return false;
      x = static_cast<float>(1.0 + static_cast<float>(tf * static_cast<double>(LOSSY ? nc[code & 255] : ni[d])));
    }
    acc[d - blockStart] += __builtin_convertvector(w - w / x, LaneSums);
  }
  lt.cursor = p;
  return true;
}

LANE_CLONES bool sweepLanes(Scorer& s, uint32_t blockStart, uint32_t blockEnd) {
  LaneSums* acc = s.laneAcc;
  const bool lossy = s.cache() != nullptr;
  const bool filtered = s.M() != nullptr;
  for (LaneTerm& lt : s.laneTerms) {
    const bool ok = lossy ? (filtered ? sweepLaneTerm<true, true>(s, lt, acc, blockStart, blockEnd) : sweepLaneTerm<true, false>(s, lt, acc, blockStart, blockEnd))
                          : (filtered ? sweepLaneTerm<false, true>(s, lt, acc, blockStart, blockEnd) : sweepLaneTerm<false, false>(s, lt, acc, blockStart, blockEnd));
    if (!ok) return false;
  }
  return true;
}

// The block's rows, in document order: a lane's sum above its heap's floor competes for its top k (as search()
// sweeps its block); every row is zeroed for the next block.
LANE_CLONES void selectLanes(LaneSums* acc, uint32_t len, uint32_t blockStart, Heap* heaps, const int64_t* ex) {
  LaneSums floor;
  for (uint32_t j = 0; j < LANES; j++) floor[j] = heaps[j].floor();
  for (uint32_t l = 0; l < len; l++) {
    const LaneSums v = acc[l];
    acc[l] = LaneSums{};
    const auto above = v > floor;
    long long any = 0;
    for (uint32_t j = 0; j < LANES; j++) any |= above[j];
    if (!any) continue;
    const uint32_t d = l + blockStart;
    for (uint32_t j = 0; j < LANES; j++) {
      if (!(v[j] > floor[j]) || static_cast<int64_t>(d) == ex[j]) continue;
      heaps[j].offer(static_cast<float>(v[j]), d);
      floor[j] = heaps[j].floor();
    }
  }
}

bool Scorer::searchLanes(const uint32_t* terms, const float* weights, const uint32_t* counts, uint32_t nq, uint32_t kk,
                       const double* exclude) {
  const double* offs = O();
  // The union of the queries' terms, ascending: (term, lane, position of its weight), sorted.
  laneEntries.clear();
  size_t at = 0;
  for (uint32_t j = 0; j < nq; j++) {
    for (uint32_t i = 0; i < counts[j]; i++, at++) laneEntries.push_back((static_cast<uint64_t>(terms[at]) << 32) | (at << LANE_BITS) | j);
  }
  std::sort(laneEntries.begin(), laneEntries.end());
  laneTerms.clear();
  for (const uint64_t e : laneEntries) {
    const uint32_t t = static_cast<uint32_t>(e >> 32);
    const uint32_t j = static_cast<uint32_t>(e & (LANES - 1));
    // A term a query names twice (not from PoolStats.prepare) becomes a second entry: added after the first.
    if (laneTerms.empty() || laneTerms.back().term != t || (laneTerms.back().laneMask >> j & 1)) {
      LaneTerm lt;
      std::memset(lt.w, 0, sizeof lt.w);
      lt.cursor = static_cast<size_t>(offs[t]);
      lt.end = static_cast<size_t>(offs[t + 1]);
      lt.term = t;
      lt.laneMask = 0;
      laneTerms.push_back(lt);
    }
    laneTerms.back().w[j] = weights[(e & 0xffffffffu) >> LANE_BITS];
    laneTerms.back().laneMask |= 1u << j;
  }
  int64_t ex[LANES];
  for (uint32_t j = 0; j < LANES; j++) {
    lanes[j].reset(j < nq ? kk : 0);
    ex[j] = j < nq ? static_cast<int64_t>(exclude[j]) : -1;
  }
  for (uint32_t blockStart = 0; blockStart < docCount; blockStart += laneBlockDocs) {
    const uint32_t blockEnd = docCount - blockStart < laneBlockDocs ? docCount : blockStart + laneBlockDocs;
    if (!sweepLanes(*this, blockStart, blockEnd)) return false;
    selectLanes(laneAcc, blockEnd - blockStart, blockStart, lanes, ex);
  }
  return true;
}


#define CHECK(call) NAPI_CHECK("bm25 kernel: ", call)

// Reads typed array `name` of `obj` (null/undefined allowed when `optional`) and holds a reference to it.
bool takeView(napi_env env, napi_value obj, const char* name, napi_typedarray_type want, bool optional, View* v) {
  napi_value val;
  if (napi_get_named_property(env, obj, name, &val) != napi_ok) return false;
  napi_valuetype vt;
  napi_typeof(env, val, &vt);
  if (vt == napi_null || vt == napi_undefined) {
    if (optional) return true;
    napi_throw_type_error(env, nullptr, (std::string("bm25 kernel: missing array ") + name).c_str());
    return false;
  }
  bool isTa = false;
  napi_is_typedarray(env, val, &isTa);
  napi_typedarray_type type;
  napi_value ab;
  size_t offset;
  if (!isTa || napi_get_typedarray_info(env, val, &type, &v->length, &v->data, &ab, &offset) != napi_ok || type != want) {
    napi_throw_type_error(env, nullptr, (std::string("bm25 kernel: wrong array type for ") + name).c_str());
    return false;
  }
  return napi_create_reference(env, val, 1, &v->ref) == napi_ok;
}

void finalizeScorer(napi_env env, void* data, void*) {
  Scorer* s = static_cast<Scorer*>(data);
  for (View* v : {&s->offsets, &s->docs, &s->tfNorms, &s->tfBigPos, &s->tfBigVal, &s->normCache, &s->normInv, &s->member, &s->tieKey}) {
    if (v->ref) napi_delete_reference(env, v->ref);
  }
  free(s->laneAcc);
  delete s;
}

// createScorer(arrays: ScoringArrays, tableMinPostings: number, blockDocs: number) → external handle
napi_value CreateScorer(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  Scorer* s = new Scorer();
  napi_value dc;
  double docCount = 0;
  CHECK(napi_get_named_property(env, argv[0], "docCount", &dc));
  CHECK(napi_get_value_double(env, dc, &docCount));
  CHECK(napi_get_value_double(env, argv[1], &s->tableMinPostings));
  double block = 0;
  CHECK(napi_get_value_double(env, argv[2], &block));
  double laneBlock = 0;
  CHECK(napi_get_value_double(env, argv[3], &laneBlock));
  s->docCount = static_cast<uint32_t>(docCount);
  s->blockDocs = static_cast<uint32_t>(block);
  s->laneBlockDocs = static_cast<uint32_t>(laneBlock);
  bool ok = takeView(env, argv[0], "offsets", napi_float64_array, false, &s->offsets) &&
            takeView(env, argv[0], "docs", napi_uint32_array, false, &s->docs) &&
            takeView(env, argv[0], "tfNorms", napi_uint16_array, false, &s->tfNorms) &&
            takeView(env, argv[0], "tfBigPos", napi_float64_array, false, &s->tfBigPos) &&
            takeView(env, argv[0], "tfBigVal", napi_uint32_array, false, &s->tfBigVal) &&
            takeView(env, argv[0], "normCache", napi_float32_array, true, &s->normCache) &&
            takeView(env, argv[0], "normInv", napi_float32_array, false, &s->normInv) &&
            takeView(env, argv[0], "member", napi_uint8_array, true, &s->member) &&
            takeView(env, argv[0], "tieKey", napi_uint32_array, true, &s->tieKey);
  if (!ok) {
    finalizeScorer(env, s, nullptr);
    return nullptr;
  }
  const uint32_t accLen = s->blockDocs < s->docCount ? s->blockDocs : s->docCount;
  s->acc.assign(accLen > 0 ? accLen : 1, 0.0);
  const uint32_t laneLen = s->laneBlockDocs < s->docCount ? s->laneBlockDocs : s->docCount;
  void* rows = nullptr;
  if (posix_memalign(&rows, 64, sizeof(LaneSums) * (laneLen > 0 ? laneLen : 1)) != 0) {
    finalizeScorer(env, s, nullptr);
    napi_throw_error(env, nullptr, "bm25 kernel: out of memory");
    return nullptr;
  }
  std::memset(rows, 0, sizeof(LaneSums) * (laneLen > 0 ? laneLen : 1));
  s->laneAcc = static_cast<LaneSums*>(rows);
  s->heap.key = s->key();
  for (Heap& h : s->lanes) h.key = s->key();
  if (const float* nc = s->cache()) {
    s->xTab.assign(TABLE_CODES, 0.0f);
    for (uint32_t code = 256; code < TABLE_CODES; code++) {
      const float x = static_cast<float>(1.0 + static_cast<float>((code >> 8) * static_cast<double>(nc[code & 255])));
      s->xTab[code] = x;
    }
  }
  napi_value ext;
  if (napi_create_external(env, s, finalizeScorer, nullptr, &ext) != napi_ok) {
    finalizeScorer(env, s, nullptr);
    napi_throw_error(env, nullptr, "bm25 kernel: napi_create_external failed");
    return nullptr;
  }
  return ext;
}

napi_value null(napi_env env) {
  napi_value nul;
  napi_get_null(env, &nul);
  return nul;
}

// [docs, scores] of a heap, best first (the heap is emptied).
napi_value drainToJs(napi_env env, Heap* heap) {
  const uint32_t n = heap->size;
  void *dOut, *sOut;
  napi_value dBuf, sBuf, dArr, sArr, pair;
  CHECK(napi_create_arraybuffer(env, 4 * static_cast<size_t>(n), &dOut, &dBuf));
  CHECK(napi_create_arraybuffer(env, 4 * static_cast<size_t>(n), &sOut, &sBuf));
  heap->drain(static_cast<uint32_t*>(dOut), static_cast<float*>(sOut));
  CHECK(napi_create_typedarray(env, napi_uint32_array, n, dBuf, 0, &dArr));
  CHECK(napi_create_typedarray(env, napi_float32_array, n, sBuf, 0, &sArr));
  CHECK(napi_create_array_with_length(env, 2, &pair));
  CHECK(napi_set_element(env, pair, 0, dArr));
  CHECK(napi_set_element(env, pair, 1, sArr));
  return pair;
}

// The arguments of search() and searchBatch(): the scorer, then typed arrays and numbers, each kind in order.
struct Args {
  Scorer* s = nullptr;
  void* array[4] = {};
  size_t length[4] = {};
  double number[2] = {};

  bool unpack(napi_env env, napi_callback_info info, size_t argc) {
    napi_value argv[6];
    size_t got = argc;
    void* ptr;
    if (napi_get_cb_info(env, info, &got, argv, nullptr, nullptr) != napi_ok || napi_get_value_external(env, argv[0], &ptr) != napi_ok) return false;
    s = static_cast<Scorer*>(ptr);
    size_t na = 0, nn = 0;
    for (size_t i = 1; i < argc; i++) {
      bool isTa = false;
      napi_is_typedarray(env, argv[i], &isTa);
      if (isTa ? na == 4 || !typedArray(env, argv[i], &array[na], &length[na]) : nn == 2 || napi_get_value_double(env, argv[i], &number[nn]) != napi_ok) return false;
      isTa ? na++ : nn++;
    }
    return true;
  }
};

napi_value badArguments(napi_env env) {
  napi_throw_type_error(env, nullptr, "bm25 kernel: wrong arguments");
  return nullptr;
}

// search(handle, terms: Uint32Array, weights: Float32Array, k, exclude) → [docs, scores] best first,
// or null when a posting's stored frequency is missing.
napi_value Search(napi_env env, napi_callback_info info) {
  Args x;
  if (!x.unpack(env, info, 5)) return badArguments(env);
  if (!x.s->search(static_cast<const uint32_t*>(x.array[0]), static_cast<const float*>(x.array[1]), static_cast<uint32_t>(x.length[0]),
                   static_cast<uint32_t>(x.number[0]), static_cast<int64_t>(x.number[1]))) {
    return null(env);
  }
  return drainToJs(env, &x.s->heap);
}

// searchBatch(handle, terms: Uint32Array, weights: Float32Array, counts: Uint32Array, k, excludes: Float64Array)
// → one [docs, scores] per query (query i: the next counts[i] terms and weights), or null as search() does.
napi_value SearchBatch(napi_env env, napi_callback_info info) {
  Args x;
  if (!x.unpack(env, info, 6)) return badArguments(env);
  Scorer* s = x.s;
  const size_t nQueries = x.length[2];
  const double k = x.number[0];
  napi_value out;
  CHECK(napi_create_array_with_length(env, nQueries, &out));
  const uint32_t* t = static_cast<const uint32_t*>(x.array[0]);
  const float* w = static_cast<const float*>(x.array[1]);
  const uint32_t* c = static_cast<const uint32_t*>(x.array[2]);
  const double* ex = static_cast<const double*>(x.array[3]);
  for (size_t from = 0; from < nQueries; from += LANES) {
    const uint32_t nq = static_cast<uint32_t>(nQueries - from < LANES ? nQueries - from : LANES);
    // A group's sweep costs the same however few lanes it fills: below half of them, one query at a time is
    // faster (bench/bm25/kernel.ts).
    const bool grouped = nq >= LANES / 2;
    if (grouped && !s->searchLanes(t, w, c + from, nq, static_cast<uint32_t>(k), ex + from)) return null(env);
    for (uint32_t j = 0; j < nq; j++) {
      if (!grouped && !s->search(t, w, c[from + j], static_cast<uint32_t>(k), static_cast<int64_t>(ex[from + j]))) return null(env);
      napi_value pair = drainToJs(env, grouped ? &s->lanes[j] : &s->heap);
      if (pair == nullptr) return nullptr;
      CHECK(napi_set_element(env, out, static_cast<uint32_t>(from + j), pair));
      t += c[from + j];  // (searchLanes has read the whole group from its first query on)
      w += c[from + j];
    }
  }
  return out;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"createScorer", nullptr, CreateScorer, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"search", nullptr, Search, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"searchBatch", nullptr, SearchBatch, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, 3, props);
  napi_value lanes;
  if (napi_create_uint32(env, LANES, &lanes) == napi_ok) napi_set_named_property(env, exports, "lanes", lanes);
  return exports;
}
