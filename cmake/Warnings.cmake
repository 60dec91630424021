# Warnings on for the project's own targets; sanitizers when asked.
add_library(lwb_warnings INTERFACE)
target_compile_options(lwb_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wnon-virtual-dtor -Wno-missing-field-initializers>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wshadow=local>
  # GCC 12 reports impossible overlaps inside std::string's operator+ at -O3 (GCC bug 105329).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-restrict>)

# lld links the test programs several times faster than ld.bfd (tst_server_errors under
# ASan: 0.7 s against 4.2 s; about 80 programs per build). Used when the compiler can.
include(CheckLinkerFlag)
check_linker_flag(CXX -fuse-ld=lld LWB_HAVE_LLD)
if(LWB_HAVE_LLD)
  add_link_options($<$<LINK_LANGUAGE:CXX>:-fuse-ld=lld>)
endif()

if(LLM_WORKBENCH_SANITIZE)
  # Line tables only: a report still names file:line for every frame, and the objects
  # compile ~20 % faster than with full -g (placed after the build type's -g, so it wins).
  add_compile_options(-fsanitize=${LLM_WORKBENCH_SANITIZE} -fno-omit-frame-pointer
    $<$<CXX_COMPILER_ID:Clang>:-gline-tables-only> $<$<CXX_COMPILER_ID:GNU>:-g1>)
  add_link_options(-fsanitize=${LLM_WORKBENCH_SANITIZE})
  if(LLM_WORKBENCH_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()

# The sanitizer build compiles code that the tests run little at -O0: the window, the HTTP
# server, the remote-server client, the engine knobs' JSON and the bench driver
# (LWB_COLD_CODE_OPTIONS, used in those folders' CMakeLists). clang 14 with ASan+UBSan
# spends most of such a file's time optimising (engine/remote/openai_client.cpp: 39 s at
# -O2, 16 s at -O0). The engine's hot paths and the code the fuzz targets reach keep the
# build type's level: with the whole engine at -O0 the tokenizer tests ran 4.5x longer.
# A program's own files keep it too: the linker takes a header template's code (nlohmann
# json's parser) from the first object that defines it, and with app/ at -O0 that copy
# made `llm-workbench tokenize` load a tokenizer 3.5x slower. The tests that link the
# cold libraries first (tst_server*, tst_remote*, tst_ui_*) ran within 10 % of -O2.
set(LWB_COLD_CODE_OPTIONS "")
if(LLM_WORKBENCH_SANITIZE)
  set(LWB_COLD_CODE_OPTIONS -O0)
endif()
