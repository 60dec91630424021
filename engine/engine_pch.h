// The engine library's precompiled header (engine/CMakeLists.txt, which lists the folders
// that use it): nlohmann json and the standard headers that most of those files parse.
// Parsing them was about a third of a model/ file's compile time (hf_tokenizer.cpp: 3.7
// of 9.9 s user with GCC). Each file still includes what it uses.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>
