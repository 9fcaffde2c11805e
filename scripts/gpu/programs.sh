# The tutorial host programs (dsl-examples/*.cpp) that go to the GPU
# machine: built by build-static.sh, packed by prepare.sh, run by run.sh.
# (dsl-examples/CMakeLists.txt lists them for the build.)
KITE_HOST_PROGRAMS="vector_add dropout seeded_dropout matmul softmax layer_norm layer_norm_bwd matmul_autotune persistent_matmul fp8_matmul attention attention_tma attention_bwd libdevice sigmoid perceptron dropout_exercises histogram"
