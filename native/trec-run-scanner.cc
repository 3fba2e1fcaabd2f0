// Compiled TREC run reader (Node-API addon): the byte loop of src/eval/trec-io.ts's RunLines.parse — tokens as C's
// isspace() splits them, the score as a correctly rounded decimal, the docno's hash and its qrels id, fresh docnos
// copied to an arena, query segments — doing exactly what that loop does, three to four times faster. It reports
// no errors of its own: at the first line it would not accept the same way (a missing field, a score that is not
// plain decimal, not finite, or beyond float32 where scores are float32) it returns that line's number, and trec-io.ts parses the whole file
// in TypeScript instead, which throws the error with its message or reads the line as it does everywhere else.
// Built with -ffp-contract=off: the score's fast path is one IEEE multiplication or division, as in JavaScript.
#include <node_api.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr size_t CHUNK = 1 << 20;
constexpr int MAX_TOKENS = 6;
constexpr double POW10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// C isspace(): space, \t, \n, \v, \f, \r.
inline bool isSpace(uint8_t c) { return c == 32 || (c >= 9 && c <= 13); }

// A malloc'd growable array whose memory becomes a JavaScript ArrayBuffer without a copy.
template <typename T>
struct Grow {
  T* data = nullptr;
  size_t size = 0;
  size_t cap = 0;
  ~Grow() { std::free(data); }
  bool reserve(size_t n) {
    if (n <= cap) return true;
    void* p = std::realloc(data, (n ? n : 1) * sizeof(T));
    if (p == nullptr) return false;
    data = static_cast<T*>(p);
    cap = n;
    return true;
  }
  // Room for `more` items beyond size, growing by half at least.
  bool room(size_t more) { return size + more <= cap || reserve(std::max(size + more, cap + cap / 2 + 1024)); }
  bool push(T v) {
    if (!room(1)) return false;
    data[size++] = v;
    return true;
  }
};

// The qrels docno table (string-table.ts's StringTable, read as it is): lookups only.
struct Qrels {
  const uint8_t* arena;
  const uint32_t* starts;
  const int32_t* hashes;
  const int32_t* slots;
  uint32_t slotMask;
  const int32_t* filter;
  uint32_t filterMask;
};

// Short byte strings (qids, docnos, tags) compared and copied inline: the library calls cost more than the work.
inline bool sameBytes(const uint8_t* a, const uint8_t* b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return false;
  return true;
}

inline void copyBytes(uint8_t* to, const uint8_t* from, size_t n) {
  for (size_t i = 0; i < n; i++) to[i] = from[i];
}

// string-table.ts's fnv1a, with its final avalanche.
inline uint32_t fnv1a(const uint8_t* p, size_t n) {
  uint32_t h = 0x811c9dc5u;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x01000193u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  return h;
}

// StringTable.findHashed.
inline int32_t findQrels(const Qrels& q, const uint8_t* p, uint32_t len, uint32_t h) {
  const uint32_t bit = h & q.filterMask;
  if ((static_cast<uint32_t>(q.filter[bit >> 5]) & (1u << (bit & 31))) == 0) return -1;
  uint32_t slot = h & q.slotMask;
  for (;;) {
    const int32_t id = q.slots[slot];
    if (id < 0) return -1;
    if (static_cast<uint32_t>(q.hashes[id]) == h) {
      const uint32_t s = q.starts[id];
      if (q.starts[id + 1] - s == len && sameBytes(q.arena + s, p, len)) return id;
    }
    slot = (slot + 1) & q.slotMask;
  }
}

// trec-numbers.ts's parseDecimal: false where that function would return NaN or ±Infinity, or where the slow
// path's reading is not plainly finite (then TypeScript decides).
inline bool parseScore(const uint8_t* s, const uint8_t* e, double* out) {
  const uint8_t* i = s;
  bool neg = false;
  if (i < e && (*i == '-' || *i == '+')) {
    neg = *i == '-';
    i++;
  }
  const uint8_t* body = i;
  uint64_t mant = 0;
  int digits = 0;
  int fracDigits = 0;
  while (i < e && *i >= '0' && *i <= '9') {
    if (digits < 19) mant = mant * 10 + (*i - '0');
    digits++;
    i++;
  }
  if (i < e && *i == '.') {
    i++;
    while (i < e && *i >= '0' && *i <= '9') {
      if (digits < 19) mant = mant * 10 + (*i - '0');
      digits++;
      fracDigits++;
      i++;
    }
  }
  if (digits == 0) return false;
  const bool exact = digits <= 19 && mant < (1ull << 53);
  int exp = 0;
  if (i < e && (*i == 'e' || *i == 'E')) {
    i++;
    bool eneg = false;
    if (i < e && (*i == '-' || *i == '+')) {
      eneg = *i == '-';
      i++;
    }
    const uint8_t* start = i;
    while (i < e && *i >= '0' && *i <= '9') {
      if (exp < 100000) exp = exp * 10 + (*i - '0');
      i++;
    }
    if (i == start) return false;
    if (eneg) exp = -exp;
  }
  if (i != e) return false;
  const int p = exp - fracDigits;
  double v;
  if (exact && p >= -22 && p <= 22) {
    const double m = static_cast<double>(mant);
    v = p < 0 ? m / POW10[-p] : m * POW10[p];
  } else {
    // strtod is correctly rounded, as JavaScript's Number(), subnormal and underflow to zero included (it
    // reports those as ERANGE too). Overflow (±HUGE_VAL), long texts and a decimal point it does not take (a
    // locale other than C) are left to TypeScript.
    char text[64];
    const size_t len = static_cast<size_t>(e - body);
    if (len >= sizeof text) return false;
    std::memcpy(text, body, len);
    text[len] = 0;
    char* stop;
    errno = 0;
    v = std::strtod(text, &stop);
    if (stop != text + len || (errno != 0 && (errno != ERANGE || v == HUGE_VAL))) return false;
  }
  *out = neg ? -v : v;
  return true;
}

struct Scan {
  const Qrels* qrels;
  bool float64;
  uint32_t base;  // qrels docno count: fresh docnos get ids from here up
  uint32_t line = 0;
  uint32_t errorLine = 0;
  Grow<uint32_t> doc;
  Grow<float> value32;
  Grow<double> value64;
  Grow<uint32_t> segStart;     // entry index where each run of lines with one qid starts
  Grow<uint32_t> segQidEnd;    // end of each segment's qid bytes in segQid
  Grow<uint8_t> segQid;
  Grow<uint8_t> freshBytes;    // RunDocnos' arena and starts
  Grow<uint32_t> freshStarts;  // count + 1 offsets, from 0
  Grow<uint8_t> tag;
  uint32_t freshCount = 0;
  bool oom = false;

  size_t count() const { return doc.size; }

  // A line read but not stored yet: lines are read BATCH at a time, prefetching the qrels table's words each
  // docno will probe, then stored: the lookups' cache misses overlap instead of following one another.
  struct Pending {
    size_t q0, q1, d0, d1, t0, t1;
    uint32_t h;
    double score;
  };
  static constexpr int BATCH = 32;
  Pending pending[BATCH];

  // The complete lines buf[0, limit), limit just after a newline; false at the first line left to TypeScript.
  bool parse(const uint8_t* u8, size_t limit) {
    size_t ts[MAX_TOKENS], te[MAX_TOKENS];
    size_t i = 0;
    while (i < limit) {
      int n = 0;
      while (n < BATCH && i < limit) {
        line++;
        int k = 0;
        while (k < MAX_TOKENS) {
          uint8_t c = u8[i];
          while (c != 10 && isSpace(c)) c = u8[++i];
          if (c == 10) break;
          ts[k] = i;
          while (c > 32 || !isSpace(c)) c = u8[++i];
          te[k] = i;
          k++;
        }
        while (u8[i] != 10) i++;
        i++;
        if (k == 0 || u8[ts[0]] == '#') continue;
        Pending& p = pending[n++];
        if (k < MAX_TOKENS || !parseScore(u8 + ts[4], u8 + te[4], &p.score) || (!float64 && std::isinf(static_cast<float>(p.score)))) {
          errorLine = line;
          return false;
        }
        p.q0 = ts[0];
        p.q1 = te[0];
        p.d0 = ts[2];
        p.d1 = te[2];
        p.t0 = ts[5];
        p.t1 = te[5];
        p.h = fnv1a(u8 + ts[2], te[2] - ts[2]);
        __builtin_prefetch(qrels->filter + ((p.h & qrels->filterMask) >> 5));
        __builtin_prefetch(qrels->slots + (p.h & qrels->slotMask));
      }
      for (int j = 0; j < n; j++)
        if (!store(u8, pending[j])) return false;
    }
    return true;
  }

  bool store(const uint8_t* u8, const Pending& p) {
    const size_t qLen = p.q1 - p.q0;
    const size_t nseg = segStart.size;
    const size_t prevStart = nseg < 2 ? 0 : segQidEnd.data[nseg - 2];
    const bool sameQid = nseg > 0 && segQidEnd.data[nseg - 1] - prevStart == qLen && sameBytes(segQid.data + prevStart, u8 + p.q0, qLen);
    if (!sameQid) {
      if (!segStart.push(static_cast<uint32_t>(doc.size)) || !segQid.room(qLen)) return fail();
      copyBytes(segQid.data + segQid.size, u8 + p.q0, qLen);
      segQid.size += qLen;
      if (!segQidEnd.push(static_cast<uint32_t>(segQid.size))) return fail();
    }
    const uint8_t* d = u8 + p.d0;
    const uint32_t dLen = static_cast<uint32_t>(p.d1 - p.d0);
    int64_t id = findQrels(*qrels, d, dLen, p.h);
    if (id < 0) {
      if (!freshBytes.room(dLen)) return fail();
      copyBytes(freshBytes.data + freshBytes.size, d, dLen);
      freshBytes.size += dLen;
      if (!freshStarts.push(static_cast<uint32_t>(freshBytes.size))) return fail();
      id = static_cast<int64_t>(base) + freshCount++;
    }
    if (!doc.push(static_cast<uint32_t>(id))) return fail();
    if (float64 ? !value64.push(p.score) : !value32.push(static_cast<float>(p.score))) return fail();
    // trec_eval keeps the run tag of the last line.
    const size_t tl = p.t1 - p.t0;
    if (tl != tag.size || !sameBytes(tag.data, u8 + p.t0, tl)) {
      if (!tag.reserve(tl)) return fail();
      copyBytes(tag.data, u8 + p.t0, tl);
      tag.size = tl;
    }
    return true;
  }

  bool fail() {
    oom = true;
    return false;
  }
};

#define CHECK(call)                                                     \
  do {                                                                  \
    if ((call) != napi_ok) {                                            \
      napi_throw_error(env, nullptr, "trec run scanner: " #call " failed"); \
      return nullptr;                                                   \
    }                                                                   \
  } while (0)

template <typename T>
bool typedArray(napi_env env, napi_value v, T** data, size_t* length) {
  napi_typedarray_type type;
  void* p;
  napi_value ab;
  size_t offset;
  if (napi_get_typedarray_info(env, v, &type, length, &p, &ab, &offset) != napi_ok) return false;
  *data = static_cast<T*>(p);
  return true;
}

void freeData(napi_env, void* data, void*) { std::free(data); }

// The array's memory as an ArrayBuffer (ownership passes to JavaScript), or a copy where the runtime refuses
// external buffers.
template <typename T>
napi_value arrayBuffer(napi_env env, Grow<T>& g) {
  napi_value out;
  const size_t bytes = g.size * sizeof(T);
  if (bytes > 0 && napi_create_external_arraybuffer(env, g.data, bytes, freeData, nullptr, &out) == napi_ok) {
    g.data = nullptr;
    g.size = g.cap = 0;
    return out;
  }
  void* copy;
  if (napi_create_arraybuffer(env, bytes, &copy, &out) != napi_ok) return nullptr;
  if (bytes > 0) std::memcpy(copy, g.data, bytes);
  return out;
}

// scanRun(path, float64, qrelsArena, qrelsStarts, qrelsHashes, qrelsSlots, qrelsFilter, filterMask, qrelsCount,
// linesEstimate) → the line number (a number) of the first line left to TypeScript, or
// [count, doc, value, segStart, segQidEnd, segQid, freshBytes, freshStarts, freshCount, tag]
// (ArrayBuffers; fresh docno j is freshBytes[freshStarts[j], freshStarts[j + 1])).
napi_value ScanRun(napi_env env, napi_callback_info info) {
  size_t argc = 10;
  napi_value argv[10];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  if (argc < 10) {
    napi_throw_type_error(env, nullptr, "trec run scanner: expected 10 arguments");
    return nullptr;
  }
  size_t pathLen;
  CHECK(napi_get_value_string_utf8(env, argv[0], nullptr, 0, &pathLen));
  std::string path(pathLen, '\0');
  CHECK(napi_get_value_string_utf8(env, argv[0], &path[0], pathLen + 1, &pathLen));
  bool float64;
  CHECK(napi_get_value_bool(env, argv[1], &float64));
  Qrels q;
  size_t n, slots;
  uint8_t* arena;
  uint32_t* starts;
  int32_t *hashes, *slotArr, *filter;
  if (!typedArray(env, argv[2], &arena, &n) || !typedArray(env, argv[3], &starts, &n) || !typedArray(env, argv[4], &hashes, &n) ||
      !typedArray(env, argv[5], &slotArr, &slots) || !typedArray(env, argv[6], &filter, &n)) {
    napi_throw_type_error(env, nullptr, "trec run scanner: expected the qrels table's typed arrays");
    return nullptr;
  }
  uint32_t filterMask, base;
  double estimate;
  CHECK(napi_get_value_uint32(env, argv[7], &filterMask));
  CHECK(napi_get_value_uint32(env, argv[8], &base));
  CHECK(napi_get_value_double(env, argv[9], &estimate));
  q = Qrels{arena, starts, hashes, slotArr, static_cast<uint32_t>(slots - 1), filter, filterMask};

  Scan scan;
  scan.qrels = &q;
  scan.float64 = float64;
  scan.base = base;
  scan.freshStarts.push(0);
  const size_t cap = estimate > 0 ? static_cast<size_t>(estimate) : 1024;
  if (!scan.doc.reserve(cap) || !(float64 ? scan.value64.reserve(cap) : scan.value32.reserve(cap))) {
    napi_throw_error(env, nullptr, "trec run scanner: out of memory");
    return nullptr;
  }
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    // TypeScript opens it again and says why.
    napi_value r;
    CHECK(napi_create_uint32(env, 0, &r));
    return r;
  }
  Grow<uint8_t> buf;
  if (!buf.reserve(CHUNK)) {
    std::fclose(f);
    napi_throw_error(env, nullptr, "trec run scanner: out of memory");
    return nullptr;
  }
  size_t have = 0;
  bool ok = true;
  bool first = true;
  for (;;) {
    if (have + 1 >= buf.cap && !buf.reserve(buf.cap * 2)) {
      scan.oom = true;
      ok = false;
      break;
    }
    const size_t got = std::fread(buf.data + have, 1, buf.cap - have - 1, f);
    size_t end = have + got;
    if (got == 0) {
      if (std::ferror(f)) {
        ok = false;  // TypeScript reads it again and reports the error
        break;
      }
      if (end == 0) break;
      if (buf.data[end - 1] != 10) buf.data[end++] = 10;  // a last line without newline
    }
    size_t limit = end;  // complete lines only; the rest waits for the next chunk
    while (limit > 0 && buf.data[limit - 1] != 10) limit--;
    if (!scan.parse(buf.data, limit)) {
      ok = false;
      break;
    }
    if (first && scan.count() > 0) {
      // Size the docno store from the first chunk's share of fresh docnos, with 5% slack.
      first = false;
      const double scale = static_cast<double>(cap) / static_cast<double>(scan.count()) * 1.05;
      scan.freshBytes.reserve(static_cast<size_t>(static_cast<double>(scan.freshBytes.size) * scale));
      scan.freshStarts.reserve(static_cast<size_t>(static_cast<double>(scan.freshStarts.size) * scale));
    }
    std::memmove(buf.data, buf.data + limit, end - limit);
    have = end - limit;
    if (got == 0) break;
  }
  std::fclose(f);
  if (scan.oom) {
    napi_throw_error(env, nullptr, "trec run scanner: out of memory");
    return nullptr;
  }
  napi_value r;
  if (!ok) {
    CHECK(napi_create_uint32(env, scan.errorLine, &r));
    return r;
  }
  CHECK(napi_create_array_with_length(env, 10, &r));
  napi_value v[10];
  CHECK(napi_create_uint32(env, static_cast<uint32_t>(scan.count()), &v[0]));
  v[1] = arrayBuffer(env, scan.doc);
  v[2] = float64 ? arrayBuffer(env, scan.value64) : arrayBuffer(env, scan.value32);
  v[3] = arrayBuffer(env, scan.segStart);
  v[4] = arrayBuffer(env, scan.segQidEnd);
  v[5] = arrayBuffer(env, scan.segQid);
  v[6] = arrayBuffer(env, scan.freshBytes);
  v[7] = arrayBuffer(env, scan.freshStarts);
  CHECK(napi_create_uint32(env, scan.freshCount, &v[8]));
  v[9] = arrayBuffer(env, scan.tag);
  for (uint32_t k = 0; k < 10; k++) {
    if (v[k] == nullptr) {
      napi_throw_error(env, nullptr, "trec run scanner: out of memory");
      return nullptr;
    }
    CHECK(napi_set_element(env, r, k, v[k]));
  }
  return r;
}

}  // namespace

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "scanRun", NAPI_AUTO_LENGTH, ScanRun, nullptr, &fn) != napi_ok) return nullptr;
  if (napi_set_named_property(env, exports, "scanRun", fn) != napi_ok) return nullptr;
  return exports;
}
