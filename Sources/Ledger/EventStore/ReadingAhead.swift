/// Hands each slice from `fetch` (a server-side cursor's `FETCH`, say) to `body` while the next one is fetched, until
/// an empty slice; `meanwhile` runs while the first is fetched, before `body` sees any. Each fetch is a child task on
/// the global executor: one inheriting the caller's connection executor would wait while `meanwhile` or `body` run
/// a statement inline on it.
func readingAhead<Slice: Collection & Sendable>(
    _ fetch: @escaping @Sendable () async throws -> Slice, meanwhile: () async throws -> Void = {},
    _ body: (Slice) async throws -> Void
) async throws {
    try await withThrowingTaskGroup(of: Slice.self) { group in
        group.addTask(executorPreference: globalConcurrentExecutor, operation: fetch)
        try await meanwhile()
        while let slice = try await group.next(), !slice.isEmpty {
            group.addTask(executorPreference: globalConcurrentExecutor, operation: fetch)
            try await body(slice)
        }
    }
}
