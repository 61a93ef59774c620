package sim

// splitmix64 is the SplitMix64 finaliser: a cheap, well-mixed hash used to
// derive per-request and per-step randomness from seeds, so every run with
// the same seeds draws the same numbers without shared RNG state.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// requestHash mixes the simulator seed with the request's seed and ID.
func requestHash(simSeed, reqSeed int64, id uint64) uint64 {
	return splitmix64(uint64(simSeed) ^ splitmix64(uint64(reqSeed)^splitmix64(id)))
}
