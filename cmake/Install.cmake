#===- cmake/Install.cmake - cmake --install and find_package(Kite) --------===#
#
# `cmake --install build --prefix P` installs:
#   P/include/kite/Runtime/{Runtime,Error}.h   the public C++ API
#   P/lib/libkite.so                           the runtime (compiler inside)
#   P/bin/{kitec,kite-opt,kite-run}            the tools
#   P/lib/cmake/Kite/                          find_package(Kite): the
#                                              imported target Kite::kite
#                                              and kite_add_kernels()
# A consumer: find_package(Kite REQUIRED) and
# target_link_libraries(app PRIVATE Kite::kite); test/install/ builds one
# against an installed prefix in the test suite.
# In the default build libkite.so and the tools load MLIR/LLVM's shared
# libraries from LLVM's directory (their install RPATH); the
# KITE_STATIC_LLVM build's libkite.so needs nothing but libc++/libz/libzstd.
#
#===-----------------------------------------------------------------------===#
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(FILES ${PROJECT_SOURCE_DIR}/include/kite/Runtime/Runtime.h
              ${PROJECT_SOURCE_DIR}/include/kite/Runtime/Error.h
              ${PROJECT_SOURCE_DIR}/include/kite/Runtime/Fp8.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kite/Runtime)

set(kite_install_rpath "\$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
if(NOT KITE_STATIC_LLVM)
  list(APPEND kite_install_rpath "${LLVM_LIBRARY_DIR}")
endif()
set_target_properties(kite_runtime PROPERTIES
  EXPORT_NAME kite
  INSTALL_RPATH "${kite_install_rpath}")
set_target_properties(kitec kite-opt kite-run PROPERTIES
  INSTALL_RPATH "${kite_install_rpath}")

install(TARGETS kite_runtime EXPORT KiteTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS kitec kite-opt kite-run
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT KiteTargets NAMESPACE Kite::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kite)

configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/KiteConfig.cmake.in
  ${PROJECT_BINARY_DIR}/KiteConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kite
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/KiteConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KiteConfig.cmake
              ${PROJECT_BINARY_DIR}/KiteConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/KiteAddKernels.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Kite)
