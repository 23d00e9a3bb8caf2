import { randomRecoverySuite } from "../testing/random-recovery-suite.js";

// 16 randomized kill/restart runs per sink (Kafka with transactions, JSON files): 32 in all.
randomRecoverySuite(16);
