import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Every connection holds a file descriptor. Many systems start processes with a soft limit of 1,024, far
/// below the connection caps; the hard limit is what the operator allows, so `serve` raises the soft limit to
/// it (as Go's runtime does), fits caps it was not given to what remains, and warns when caps it was given
/// cannot fit.
enum DescriptorLimit {
    /// Descriptors kept for everything but the port's connections: the pool, the providers' connections,
    /// listeners, files.
    static let reserve = 512

    /// Raises the soft limit to the hard one; returns it, nil when unlimited.
    static func raise() -> Int? {
        #if canImport(Glibc)
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
            if limit.rlim_cur < limit.rlim_max {
                var raised = limit
                raised.rlim_cur = limit.rlim_max
                if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
            }
            return limit.rlim_cur == rlim_t.max ? nil : Int(clamping: limit.rlim_cur)
        #else
            return nil
        #endif
    }

    /// The caps `serve` runs with under the open-file limit it got: a cap the operator did not set is lowered
    /// to fit (the HTTP one to at most a quarter of what is left, the channel one to the rest).
    static func fit(_ configuration: ConnectionLimits.Configuration, logger: Logger) -> ConnectionLimits.Configuration {
        guard let available = raise().map({ $0 - reserve }) else { return configuration }
        var fitted = configuration
        if fitted.maxConnections + fitted.maxChannelConnections > available, configuration.httpCapIsDefault {
            fitted.maxConnections = max(1, min(fitted.maxConnections, available / 4))
        }
        if fitted.maxConnections + fitted.maxChannelConnections > available, configuration.channelCapIsDefault {
            fitted.maxChannelConnections = max(1, available - fitted.maxConnections)
        }
        if fitted != configuration {
            logger.info(
                """
                connection caps fitted to the open-file limit: --max-connections \(fitted.maxConnections), \
                --max-channel-connections \(fitted.maxChannelConnections)
                """)
        }
        let wanted = fitted.maxConnections + fitted.maxChannelConnections
        if wanted > available {
            logger.warning(
                """
                the open-file limit leaves \(available) descriptors for connections, below the caps \
                (\(wanted) in all); raise it (ulimit -n, LimitNOFILE=) or lower \
                --max-connections/--max-channel-connections
                """)
        }
        return fitted
    }
}
