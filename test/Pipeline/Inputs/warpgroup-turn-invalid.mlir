func.func @f() {
  kite.warpgroup_turn "go"
  return
}

// -----

func.func @g() {
  kite.ring_init 0 slots 0 arrivals 256 releases 8
  return
}

// -----

func.func @h() {
  kite.ring_init 0 slots 4 arrivals 0 releases 8
  return
}
