// Placeholder until the suite's first test lands.
