/// The task ids vivo's `saveListPayload` issued, which `pushToList` must name. Bounded, oldest forgotten first, so a
/// long load test cannot grow it without end; a server uses a task id right after saving it.
struct VivoTaskStore {
    static let capacity = 100_000

    private var known: Set<String> = []
    private var order: [String] = []
    private var oldest = 0

    mutating func insert(_ taskID: String) {
        guard self.known.insert(taskID).inserted else { return }
        self.order.append(taskID)
        if self.known.count > Self.capacity {
            self.known.remove(self.order[self.oldest])
            self.oldest += 1
            // Compacting now and then keeps the forgotten prefix from growing with the total issued.
            if self.oldest >= Self.capacity {
                self.order.removeFirst(self.oldest)
                self.oldest = 0
            }
        }
    }

    func contains(_ taskID: String) -> Bool {
        self.known.contains(taskID)
    }
}
