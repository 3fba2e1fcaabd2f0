// What the Node-API addons of native/ share: the check that turns a failed call into a thrown error, and the
// data of a typed array whose type the TypeScript caller fixes.
#pragma once
#include <node_api.h>

#include <cstddef>

// Returns nullptr from the calling function, after throwing "<prefix><call> failed", when `call` fails.
#define NAPI_CHECK(prefix, call)                                        \
  do {                                                                  \
    if ((call) != napi_ok) {                                            \
      napi_throw_error(env, nullptr, prefix #call " failed");           \
      return nullptr;                                                   \
    }                                                                   \
  } while (0)

template <typename T>
inline bool typedArray(napi_env env, napi_value v, T** data, size_t* length) {
  napi_typedarray_type type;
  void* p;
  napi_value ab;
  size_t offset;
  if (napi_get_typedarray_info(env, v, &type, length, &p, &ab, &offset) != napi_ok) return false;
  *data = static_cast<T*>(p);
  return true;
}
