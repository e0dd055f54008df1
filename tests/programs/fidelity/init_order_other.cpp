// The other translation unit of init_order.cpp: a global it reads while
// initializing, itself initialized dynamically. With INIT_FIRST its
// constructor runs before every constructor of default priority.
#include <cstdlib>

struct Value {
  int v;
  Value();
};

Value::Value() : v(std::getenv("MTPC_NO_SUCH_VARIABLE") ? 5 : 41) {}

#ifdef INIT_FIRST
__attribute__((init_priority(1000)))
#endif
Value other_value;
