// Compiled BM25 search kernel (Node-API addon), the same algorithm as the TypeScript loop in
// src/retrieval/bm25/typescript-kernel.ts: term-at-a-time scoring in blocks of documents, double accumulators, a size-k
// min-heap by (float score, tie key). Every float step mirrors the TypeScript one — the operation in double,
// then rounded to float, as Math.fround does — so scores, sums and ties are bit-identical to the fallback.
// Built with -ffp-contract=off: a fused multiply-add would skip a rounding.
#include <type_traits>
#include <node_api.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr uint32_t TF_BIG = 255;
constexpr int TABLE_TF = 16;
constexpr uint32_t TABLE_CODES = (TABLE_TF + 1) << 8;

struct View {
  napi_ref ref = nullptr;
  void* data = nullptr;
  size_t length = 0;
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
  std::vector<uint32_t> heapDocs;
  std::vector<float> heapScores;
  uint32_t heapSize = 0;
  uint32_t k = 0;

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

  bool worse(float sx, uint32_t dx, float sy, uint32_t dy) const {
    if (sx != sy) return sx < sy;
    const uint32_t* kk = key();
    return kk == nullptr ? dx < dy : kk[dx] < kk[dy];
  }

  double heapFloor() const {
    if (k == 0) return __builtin_inf();
    if (heapSize < k) return 0;
    const float min = heapScores[0];
    if (!(min > 0)) return -__builtin_inf();
    uint32_t bits;
    std::memcpy(&bits, &min, 4);
    bits--;
    float below;
    std::memcpy(&below, &bits, 4);
    return below;
  }

  void heapOffer(float s, uint32_t d) {
    uint32_t* hd = heapDocs.data();
    float* hs = heapScores.data();
    if (heapSize < k) {
      uint32_t j = heapSize++;
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
    uint32_t* hd = heapDocs.data();
    float* hs = heapScores.data();
    const uint32_t size = heapSize;
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
    k = kk;
    heapSize = 0;
    if (heapDocs.size() < kk) {
      heapDocs.resize(kk);
      heapScores.resize(kk);
    }
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
      double floor = heapFloor();
      for (uint32_t l = 0; l < len; l++) {
        const double v = a[l];
        if (v <= floor) continue;
        const uint32_t d = l + blockStart;
        if (static_cast<int64_t>(d) == exclude) continue;
        heapOffer(static_cast<float>(v), d);
        floor = heapFloor();
      }
      std::memset(a, 0, sizeof(double) * len);
    }
    return true;
  }
};

#define CHECK(call)                                   \
  do {                                                \
    if ((call) != napi_ok) {                          \
      napi_throw_error(env, nullptr, "bm25 kernel: " #call " failed"); \
      return nullptr;                                 \
    }                                                 \
  } while (0)

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
  delete s;
}

// createScorer(arrays: ScoringArrays, tableMinPostings: number, blockDocs: number) → external handle
napi_value CreateScorer(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  Scorer* s = new Scorer();
  napi_value dc;
  double docCount = 0;
  CHECK(napi_get_named_property(env, argv[0], "docCount", &dc));
  CHECK(napi_get_value_double(env, dc, &docCount));
  CHECK(napi_get_value_double(env, argv[1], &s->tableMinPostings));
  double block = 0;
  CHECK(napi_get_value_double(env, argv[2], &block));
  s->docCount = static_cast<uint32_t>(docCount);
  s->blockDocs = static_cast<uint32_t>(block);
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
  napi_value ext;
  if (napi_create_external(env, s, finalizeScorer, nullptr, &ext) != napi_ok) {
    finalizeScorer(env, s, nullptr);
    napi_throw_error(env, nullptr, "bm25 kernel: napi_create_external failed");
    return nullptr;
  }
  return ext;
}

// search(handle, terms: Uint32Array, weights: Float32Array, k, exclude) → [docs, scores] best first,
// or null when a posting's stored frequency is missing.
napi_value Search(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  void* ptr;
  CHECK(napi_get_value_external(env, argv[0], &ptr));
  Scorer* s = static_cast<Scorer*>(ptr);
  napi_typedarray_type type;
  size_t nTerms, nWeights, offset;
  void *terms, *weights;
  napi_value ab;
  CHECK(napi_get_typedarray_info(env, argv[1], &type, &nTerms, &terms, &ab, &offset));
  CHECK(napi_get_typedarray_info(env, argv[2], &type, &nWeights, &weights, &ab, &offset));
  double k, exclude;
  CHECK(napi_get_value_double(env, argv[3], &k));
  CHECK(napi_get_value_double(env, argv[4], &exclude));
  if (!s->search(static_cast<const uint32_t*>(terms), static_cast<const float*>(weights), static_cast<uint32_t>(nTerms),
                 static_cast<uint32_t>(k), static_cast<int64_t>(exclude))) {
    napi_value nul;
    napi_get_null(env, &nul);
    return nul;
  }
  const uint32_t n = s->heapSize;
  void *dOut, *sOut;
  napi_value dBuf, sBuf, dArr, sArr, pair;
  CHECK(napi_create_arraybuffer(env, 4 * static_cast<size_t>(n), &dOut, &dBuf));
  CHECK(napi_create_arraybuffer(env, 4 * static_cast<size_t>(n), &sOut, &sBuf));
  uint32_t* docsOut = static_cast<uint32_t*>(dOut);
  float* scoresOut = static_cast<float*>(sOut);
  for (int64_t i = static_cast<int64_t>(n) - 1; i >= 0; i--) {  // drain the heap, best first
    docsOut[i] = s->heapDocs[0];
    scoresOut[i] = s->heapScores[0];
    s->heapSize--;
    if (s->heapSize > 0) s->siftDown(s->heapScores[s->heapSize], s->heapDocs[s->heapSize]);
  }
  CHECK(napi_create_typedarray(env, napi_uint32_array, n, dBuf, 0, &dArr));
  CHECK(napi_create_typedarray(env, napi_float32_array, n, sBuf, 0, &sArr));
  CHECK(napi_create_array_with_length(env, 2, &pair));
  CHECK(napi_set_element(env, pair, 0, dArr));
  CHECK(napi_set_element(env, pair, 1, sArr));
  return pair;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"createScorer", nullptr, CreateScorer, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"search", nullptr, Search, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, 2, props);
  return exports;
}
