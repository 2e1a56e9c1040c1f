import Foundation
import Ledger
import PushCore

extension BatchSender {
    /// What one target needs: an answer known without a provider, or a notification for one client.
    enum Prepared {
        case done(Delivered)
        case apns(APNsClient, APNsNotification)
        case fcm(FCMClient, FCMMessage)
        case wns(WNSClient, WNSNotification)
        case vendor(VendorLane, token: String)
    }

    /// Sends one chunk of a batch through `PushProvider.deliver`: each provider client's requests of the chunk
    /// go out together (one submission to libcurl for APNs, FCM and WNS; a vendor lane's devices in its
    /// lists), then only the devices whose answer is worth another attempt (429, 5xx, connection trouble, an
    /// expired provider token) again, with backoff.
    func deliver(
        _ chunk: [Int], plan: BatchPlan, claim: BatchClaim, request: PushRequest, gate: DispatchGate, now: Date
    ) async -> [(Int, Delivered)] {
        var delivered: [(Int, Delivered)] = []
        var apns = ProviderGroups<APNsClient>()
        var fcm = ProviderGroups<FCMClient>()
        var wns = ProviderGroups<WNSClient>()
        var lanes: [VendorLane.Key: (lane: VendorLane, indices: [Int], tokens: [String])] = [:]
        for index in chunk {
            switch prepare(claim.targets[index], plan: plan, claim: claim, request: request, now: now) {
            case .done(let known): delivered.append((index, known))
            case .apns(let client, let notification): apns.add(client, index, notification)
            case .fcm(let client, let message): fcm.add(client, index, message)
            case .wns(let client, let notification): wns.add(client, index, notification)
            case .vendor(let lane, let token):
                lanes[lane.key, default: (lane, [], [])].indices.append(index)
                lanes[lane.key]!.tokens.append(token)
            }
        }
        await withTaskGroup(of: [(Int, Delivered)].self) { group in
            apns.send(in: &group, gate: gate, now: now, clock: providers.clock)
            fcm.send(in: &group, gate: gate, now: now, clock: providers.clock)
            wns.send(in: &group, gate: gate, now: now, clock: providers.clock)
            for (lane, indices, tokens) in lanes.values {
                group.addTask {
                    await self.sendVendor(lane, indices, tokens, plan: plan, gate: gate, now: now)
                }
            }
            for await part in group { delivered.append(contentsOf: part) }
        }
        return delivered
    }

    /// A vendor lane's devices of a chunk, in the vendor's lists; a daily-quota answer stops the vendor for
    /// the app's day.
    func sendVendor(
        _ lane: VendorLane, _ indices: [Int], _ tokens: [String], plan: BatchPlan, gate: DispatchGate, now: Date
    ) async -> [(Int, Delivered)] {
        let (delivered, quota) = await Self.deliver(
            lane.client.requests(lane.message, to: tokens), through: lane.client, to: indices, gate: gate, now: now,
            clock: providers.clock)
        if quota {
            await providers.stopForTheDay(app: plan.app, vendor: lane.key.vendor, profile: lane.key.profile, now: now)
        }
        return delivered
    }

    /// `requests` (whose devices are the targets at `indices`, in order) through `provider`: each target's
    /// outcome, and whether a device's answer said the app's daily quota at the provider is used up. Times
    /// each device for the metrics from the start to its last answer.
    static func deliver<Provider: PushProvider>(
        _ requests: [Provider.Request], through provider: Provider, to indices: [Int], gate: DispatchGate, now: Date,
        clock: ServiceClock
    ) async -> (delivered: [(Int, Delivered)], quota: Bool) {
        let answers = await provider.deliver(requests, clock: clock)
        let timer = FanOutMetrics.providerTimer(provider.name)
        var quota = false
        let delivered = zip(indices, answers).map { index, answer in
            FanOutMetrics.providerSend(provider.name, timer: timer, answer.elapsed, attempts: answer.result.attempts)
            if case .vendor(let reason)? = answer.result.outcome.reason, reason.kind == .quota { quota = true }
            let outcome = classify(answer.result.outcome, gate: gate, now: now)
            return (index, Delivered(outcome: outcome, retries: answer.result.attempts - 1))
        }
        return (delivered, quota)
    }

    /// The notification for one target, or its outcome when no provider is needed (own channel, no content
    /// for its platform, no credentials).
    func prepare(_ target: PushTarget, plan: BatchPlan, claim: BatchClaim, request: PushRequest, now: Date) -> Prepared
    {
        let profile = target.profile ?? request.deviceProfile
        do {
            switch target.deviceType {
            case PushPlatform.ios.rawValue:
                let (client, topic) = try plan.apns(target)
                guard let payload = try plan.apnsPayload(badge: target.badge) else {
                    return .done(.failed(reason: "NoContentForPlatform"))
                }
                var notification = APNsNotification(
                    deviceToken: target.token, payload: payload.bytes, pushType: payload.pushType,
                    priority: payload.priority,
                    expiration: request.expiration.map { LeanDate.unixMilliseconds($0) / 1000 },
                    // Re-sent batches after a crash collapse into one notification on the device, unless the
                    // push names its own collapse id.
                    collapseId: payload.collapseId ?? claim.pushId)
                notification.topic = topic
                return .apns(client, notification)
            case PushPlatform.android.rawValue:
                let ttl = request.expiration.map { max(0, Int64($0.timeIntervalSince(now).rounded(.down))) }
                switch DeliveryRoute(target) {
                case .channel: return .done(Self.viaChannel(.android, plan: plan))
                case .unknownVendor: return .done(.failed(reason: "UnknownVendor"))
                case .vendor(let vendor):
                    switch plan.vendorLane(vendor, profile) {
                    case .failure(let failure): return .done(.failed(reason: failure.reason))
                    case .success(let lane):
                        guard lane.client.accepts(token: target.token) else {
                            return .done(.failed(reason: ProviderReason.forbiddenEndpoint.description))
                        }
                        return .vendor(lane, token: target.token)
                    }
                case .fcm(leanCloudShape: true):
                    let client = try plan.fcm(profile)
                    guard let content = try plan.fcmLeanCloudContent.get() else {
                        return .done(.failed(reason: "NoContentForPlatform"))
                    }
                    return .fcm(client, try FCMMessage(leanCloud: content, token: target.token, timeToLive: ttl))
                default:
                    let client = try plan.fcm(profile)
                    guard
                        let message = try plan.data.fcmMessage(
                            token: target.token, notificationId: claim.pushId, timeToLive: ttl)
                    else { return .done(.failed(reason: "NoContentForPlatform")) }
                    return .fcm(client, message)
                }
            case PushPlatform.windows.rawValue:
                guard !target.token.isEmpty else { return .done(Self.viaChannel(.windows, plan: plan)) }
                let client = try plan.wns(profile)
                guard let payload = try plan.windowsPayload() else {
                    return .done(.failed(reason: "NoContentForPlatform"))
                }
                return .wns(
                    client,
                    WNSNotification(
                        channelURI: target.token, payload: payload,
                        timeToLive: request.expiration.map { Int64($0.timeIntervalSince(now).rounded(.down)) }))
            default:
                return .done(.failed(reason: "NoDeliveryChannel"))
            }
        } catch let failure as ProviderRegistry.Failure {
            return .done(.failed(reason: failure.reason))
        } catch {
            return .done(.failed(reason: "InvalidPayload"))
        }
    }
}

/// Requests of a chunk grouped by the provider client that sends them (normally one per provider), in order.
struct ProviderGroups<Provider: PushProvider> {
    private var order: [ObjectIdentifier] = []
    private var members: [ObjectIdentifier: (provider: Provider, indices: [Int], requests: [Provider.Request])] = [:]

    mutating func add(_ provider: Provider, _ index: Int, _ request: Provider.Request) {
        let key = ObjectIdentifier(provider)
        if members[key] == nil {
            order.append(key)
            members[key] = (provider, [], [])
        }
        members[key]!.indices.append(index)
        members[key]!.requests.append(request)
    }

    /// A task per provider client of the chunk, delivering its requests.
    func send(
        in group: inout TaskGroup<[(Int, BatchSender.Delivered)]>, gate: DispatchGate, now: Date, clock: ServiceClock
    ) {
        for key in order {
            let (provider, indices, requests) = members[key]!
            group.addTask {
                await BatchSender.deliver(
                    requests, through: provider, to: indices, gate: gate, now: now, clock: clock
                ).delivered
            }
        }
    }
}
