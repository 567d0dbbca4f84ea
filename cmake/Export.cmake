# Install rules and the CMake package `SoftmaxMLIR`, so another project can
#
#   find_package(SoftmaxMLIR REQUIRED CONFIG)   # -DSoftmaxMLIR_DIR=<prefix>/lib/cmake/SoftmaxMLIR
#   target_link_libraries(app PRIVATE SoftmaxMLIR::SoftmaxPipelines)
#
# Included at the end of the top-level CMakeLists.txt, after every target
# exists.
#
# add_mlir_library already installs each library, into the export set
# `MLIRTargets` (add_mlir_library_install). That set is MLIR's name and we
# never install(EXPORT) it: a set that is never exported costs nothing. The
# libraries are installed a second time (same files, same destination) into
# our own set `SoftmaxMLIRTargets`, next to softmax-opt and the plugin, and
# only that set is exported, as `SoftmaxMLIR::<target>`.

include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(SOFTMAX_INSTALL_PACKAGE_DIR "lib${LLVM_LIBDIR_SUFFIX}/cmake/SoftmaxMLIR")
set(SOFTMAX_BUILD_PACKAGE_DIR "${PROJECT_BINARY_DIR}/${SOFTMAX_INSTALL_PACKAGE_DIR}")

# Every library add_mlir_library made from lib/ (MLIR_EXPORTS lists them all;
# obj.* object libraries and targets from elsewhere are left out).
set(SOFTMAX_EXPORTED_LIBS)
get_property(_softmax_mlir_exports GLOBAL PROPERTY MLIR_EXPORTS)
foreach(_lib IN LISTS _softmax_mlir_exports)
  if(NOT TARGET ${_lib} OR _lib MATCHES "^obj\\.")
    continue()
  endif()
  get_target_property(_type ${_lib} TYPE)
  get_target_property(_dir ${_lib} SOURCE_DIR)
  if(_type MATCHES "^(STATIC|SHARED)_LIBRARY$" AND
     _dir MATCHES "^${PROJECT_SOURCE_DIR}/lib(/|$)")
    list(APPEND SOFTMAX_EXPORTED_LIBS ${_lib})
  endif()
endforeach()
list(REMOVE_DUPLICATES SOFTMAX_EXPORTED_LIBS)

foreach(_lib IN LISTS SOFTMAX_EXPORTED_LIBS)
  # Consumers get our headers (source and generated) and C++17; MLIR's and
  # LLVM's include directories are added by SoftmaxMLIRConfig.cmake.
  target_include_directories(${_lib} INTERFACE
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(${_lib} INTERFACE cxx_std_17)
endforeach()

install(TARGETS ${SOFTMAX_EXPORTED_LIBS}
  EXPORT SoftmaxMLIRTargets
  ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX}
  LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# softmax-opt (tools/softmax-opt) and SoftmaxPlugin (tools/softmax-plugin)
# install themselves into SoftmaxMLIRTargets.

# LLVM's tools get an install RPATH of $ORIGIN/../lib only; libMLIR.so and
# libLLVM.so stay in /usr/lib/llvm-22/lib, outside the loader's search path.
foreach(_tool softmax-opt SoftmaxPlugin)
  if(TARGET ${_tool})
    set_property(TARGET ${_tool} APPEND PROPERTY INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
  endif()
endforeach()

# Headers: include/softmax-mlir (.h, .td), include/softmax-mlir-c and the
# generated .inc files.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/softmax-mlir
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/softmax-mlir
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)
# The C API: include/softmax-mlir-c and its generated pass declarations.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/softmax-mlir-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/softmax-mlir-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE)

# The package: installed tree ...
install(EXPORT SoftmaxMLIRTargets
  NAMESPACE SoftmaxMLIR::
  FILE SoftmaxMLIRTargets.cmake
  DESTINATION ${SOFTMAX_INSTALL_PACKAGE_DIR})

set(SOFTMAX_CONFIG_INCLUDE_DIRS "\${PACKAGE_PREFIX_DIR}/${CMAKE_INSTALL_INCLUDEDIR}")
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/SoftmaxMLIRConfig.cmake.in
  ${PROJECT_BINARY_DIR}/CMakeFiles/SoftmaxMLIRConfig.install.cmake
  INSTALL_DESTINATION ${SOFTMAX_INSTALL_PACKAGE_DIR})
write_basic_package_version_file(
  ${SOFTMAX_BUILD_PACKAGE_DIR}/SoftmaxMLIRConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/CMakeFiles/SoftmaxMLIRConfig.install.cmake
  RENAME SoftmaxMLIRConfig.cmake
  DESTINATION ${SOFTMAX_INSTALL_PACKAGE_DIR})
install(FILES
  ${SOFTMAX_BUILD_PACKAGE_DIR}/SoftmaxMLIRConfigVersion.cmake
  DESTINATION ${SOFTMAX_INSTALL_PACKAGE_DIR})

# ... and build tree: -DSoftmaxMLIR_DIR=<build>/lib/cmake/SoftmaxMLIR works
# without installing.
export(EXPORT SoftmaxMLIRTargets
  NAMESPACE SoftmaxMLIR::
  FILE ${SOFTMAX_BUILD_PACKAGE_DIR}/SoftmaxMLIRTargets.cmake)
set(SOFTMAX_CONFIG_INCLUDE_DIRS
  "${PROJECT_SOURCE_DIR}/include;${PROJECT_BINARY_DIR}/include")
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/SoftmaxMLIRConfig.cmake.in
  ${SOFTMAX_BUILD_PACKAGE_DIR}/SoftmaxMLIRConfig.cmake
  INSTALL_DESTINATION ${SOFTMAX_BUILD_PACKAGE_DIR}
  INSTALL_PREFIX ${PROJECT_BINARY_DIR})
