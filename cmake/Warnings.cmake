# Warnings on for the project's own targets; sanitizers when asked.
add_library(lwb_warnings INTERFACE)
target_compile_options(lwb_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wnon-virtual-dtor -Wno-missing-field-initializers>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wshadow=local>
  # GCC 12 reports impossible overlaps inside std::string's operator+ at -O3 (GCC bug 105329).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-restrict>)

# lld links the test programs several times faster than ld.bfd, and a build links about
# 80 of them. Used when the compiler can.
include(CheckLinkerFlag)
check_linker_flag(CXX -fuse-ld=lld LWB_HAVE_LLD)
if(LWB_HAVE_LLD)
  add_link_options($<$<LINK_LANGUAGE:CXX>:-fuse-ld=lld>)
endif()

if(LLM_WORKBENCH_SANITIZE)
  # Line tables only: a report still names file:line for every frame, and the objects
  # compile faster than with full -g (placed after the build type's -g, so it wins).
  add_compile_options(-fsanitize=${LLM_WORKBENCH_SANITIZE} -fno-omit-frame-pointer
    $<$<CXX_COMPILER_ID:Clang>:-gline-tables-only> $<$<CXX_COMPILER_ID:GNU>:-g1>)
  add_link_options(-fsanitize=${LLM_WORKBENCH_SANITIZE})
  if(LLM_WORKBENCH_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()

# The sanitizer build compiles code that the tests run little at -O0: the window, the HTTP
# server, the remote-server client, the engine knobs' JSON and the bench driver
# (LWB_COLD_CODE_OPTIONS, used in those folders' CMakeLists): clang with ASan+UBSan spends
# most of such a file's compile time optimising it. The engine's hot paths and the code
# the fuzz targets reach keep the build type's level, or the tokenizer tests would run
# several times longer. A program's own files keep it too: the linker takes a header
# template's code (nlohmann json's parser) from the first object that defines it, and an
# -O0 copy there slows `llm-workbench tokenize`'s tokenizer loading.
set(LWB_COLD_CODE_OPTIONS "")
if(LLM_WORKBENCH_SANITIZE)
  set(LWB_COLD_CODE_OPTIONS -O0)
endif()
