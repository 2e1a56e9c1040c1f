import PushCore
import Testing

/// The fan-out's job lifecycle as a pure function: every transition, checked without a database.
@Suite("Fan-out job state transitions")
struct JobStateTests {
    @Test("a push starts scheduled, targeting, sending or done depending on its audience")
    func initialStates() {
        #expect(JobState.initial(scheduled: true, deviceTargets: nil, listed: false) == .scheduled)
        #expect(JobState.initial(scheduled: true, deviceTargets: 3, listed: true) == .scheduled)
        #expect(JobState.initial(scheduled: false, deviceTargets: nil, listed: false) == .targeting)
        #expect(JobState.initial(scheduled: false, deviceTargets: 3, listed: true) == .sending)
        #expect(JobState.initial(scheduled: false, deviceTargets: 0, listed: true) == .done)
        // Listed but expired before it was accepted: nothing to target.
        #expect(JobState.initial(scheduled: false, deviceTargets: nil, listed: true) == .done)
    }

    @Test("targeting pages lead to targeting, sending or done")
    func pages() {
        for from in [JobState.scheduled, .targeting] {
            #expect(from.after(.pageTargeted(morePages: true, batchesPending: true)) == .targeting)
            #expect(from.after(.pageTargeted(morePages: true, batchesPending: false)) == .targeting)
            #expect(from.after(.pageTargeted(morePages: false, batchesPending: true)) == .sending)
            #expect(from.after(.pageTargeted(morePages: false, batchesPending: false)) == .done)
            #expect(from.after(.expired) == .done)
            #expect(from.after(.retryLater) == from)
        }
        // Once sending, the audience is exhausted: no page, expiry or retry applies.
        #expect(JobState.sending.after(.pageTargeted(morePages: false, batchesPending: false)) == nil)
        #expect(JobState.sending.after(.expired) == nil)
        #expect(JobState.sending.after(.retryLater) == nil)
    }

    @Test("the last recorded batch finishes a sending push; earlier ones change nothing")
    func batches() {
        #expect(JobState.sending.after(.batchRecorded(batchesPending: true)) == .sending)
        #expect(JobState.sending.after(.batchRecorded(batchesPending: false)) == .done)
        // While targeting goes on, the last page decides, not a batch.
        #expect(JobState.targeting.after(.batchRecorded(batchesPending: false)) == .targeting)
        #expect(JobState.scheduled.after(.batchRecorded(batchesPending: false)) == nil)
    }

    @Test("cancel and failure end any live push; nothing moves a push that has ended")
    func endings() {
        for live in JobState.allCases where !live.isTerminal {
            #expect(live.after(.cancelled) == .cancelled)
            #expect(live.after(.failed) == .failed)
        }
        let events: [JobEvent] = [
            .pageTargeted(morePages: true, batchesPending: true),
            .pageTargeted(morePages: false, batchesPending: false),
            .expired, .batchRecorded(batchesPending: false), .batchRecorded(batchesPending: true), .retryLater,
            .cancelled, .failed,
        ]
        for ended in JobState.allCases where ended.isTerminal {
            for event in events { #expect(ended.after(event) == nil, "\(ended) after \(event)") }
        }
        #expect(Set(JobState.allCases.filter(\.isTerminal)) == [.done, .cancelled, .failed])
    }

    @Test("every state the fan-out can reach is reachable from a start by some event sequence")
    func reachability() {
        let events: [JobEvent] = [
            .pageTargeted(morePages: true, batchesPending: true), .pageTargeted(morePages: false, batchesPending: true),
            .pageTargeted(morePages: false, batchesPending: false), .expired, .batchRecorded(batchesPending: false),
            .retryLater, .cancelled, .failed,
        ]
        var reached: Set<JobState> = [.scheduled, .targeting]
        var frontier = Array(reached)
        while let state = frontier.popLast() {
            for event in events {
                if let next = state.after(event), reached.insert(next).inserted { frontier.append(next) }
            }
        }
        #expect(reached == Set(JobState.allCases))
    }

    @Test("a batch is leased only while free and its push live, recorded once, cancelled only when no one holds it")
    func batchTransitions() {
        #expect(BatchState.pending.after(.leased(leaseLapsed: true, jobSendable: true)) == .pending)
        #expect(BatchState.pending.after(.leased(leaseLapsed: false, jobSendable: true)) == nil)
        #expect(BatchState.pending.after(.leased(leaseLapsed: true, jobSendable: false)) == nil)
        #expect(BatchState.pending.after(.recorded(completesBatch: true)) == .done)
        #expect(BatchState.pending.after(.recorded(completesBatch: false)) == .pending)
        #expect(BatchState.pending.after(.jobEnded(leaseLapsed: true)) == .cancelled)
        #expect(BatchState.pending.after(.jobEnded(leaseLapsed: false)) == .pending)
        for ended in [BatchState.done, .cancelled] {
            for event in [
                BatchEvent.leased(leaseLapsed: true, jobSendable: true), .recorded(completesBatch: true),
                .recorded(completesBatch: false), .jobEnded(leaseLapsed: true),
            ] {
                #expect(ended.after(event) == nil, "\(ended) after \(event)")
            }
        }
    }
}
