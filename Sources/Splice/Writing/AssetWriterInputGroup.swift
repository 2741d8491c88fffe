import MediaCore

/// Inputs whose tracks are alternatives to each other: one `alternate_group` in the file,
/// the default input enabled and the others disabled.
public final class AssetWriterInputGroup: Sendable {
    /// The group's inputs.
    public let inputs: [AssetWriterInput]
    /// The input enabled by default; `nil` leaves every track of the group disabled.
    public let defaultInput: AssetWriterInput?
    /// The `alternate_group` number to use when it is free; the writer numbers the group otherwise.
    public let preferredAlternateGroup: Int?

    /// A group of `inputs` with `defaultInput` enabled, numbered `preferredAlternateGroup` when that is free.
    public init(inputs: [AssetWriterInput], defaultInput: AssetWriterInput?, preferredAlternateGroup: Int? = nil) {
        self.inputs = inputs
        self.defaultInput = defaultInput
        self.preferredAlternateGroup = preferredAlternateGroup
    }
}

extension AssetWriterInputGroup {
    /// `alternate_group` numbers and enabled flags: each group one unique non-zero number
    /// (its preferred one when free), its default input enabled and the rest disabled.
    static func assignments(_ groups: [AssetWriterInputGroup]) -> [ObjectIdentifier: (group: Int16, enabled: Bool)] {
        var numbers = [Int?](repeating: nil, count: groups.count)
        var used = Set<Int>()
        // Preferred numbers first (the first group asking for a number gets it), then the lowest free ones.
        for (i, g) in groups.enumerated() {
            if let n = g.preferredAlternateGroup, n > 0, n <= Int(widening: Int16.max), used.insert(n).inserted { numbers[i] = n }
        }
        var next = 1
        for i in groups.indices where numbers[i] == nil {
            while used.contains(next) { next += 1 }
            numbers[i] = next
            used.insert(next)
        }
        var result: [ObjectIdentifier: (Int16, Bool)] = [:]
        for (g, n) in zip(groups, numbers) {
            for input in g.inputs { result[ObjectIdentifier(input)] = (Int16(clamping: n!), input === g.defaultInput) }
        }
        return result
    }
}
