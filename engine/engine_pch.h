// The engine library's precompiled header (engine/CMakeLists.txt, which lists the folders
// that use it): nlohmann json and the standard headers that most of those files parse.
// Parsing them was a large share of a model/ file's compile time (compare `-ftime-report`
// with and without the header). Each file still includes what it uses.
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
