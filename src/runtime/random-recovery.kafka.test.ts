import { randomRecoverySuite } from "../testing/random-recovery-suite.js";

// npm test's share of the randomized kill/restart runs; npm run test:faults runs 16 per sink.
randomRecoverySuite(1);
