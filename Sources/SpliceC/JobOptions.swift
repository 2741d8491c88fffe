import Foundation
import SpliceCLI

/// A call's options JSON as the subcommand's options: `{"preset": "1280x720", "faststart":
/// true, "tracks": [1, 3]}` → `--faststart --preset 1280x720 --tracks 1,3` (keys in order,
/// so that the same options make the same command line).
struct JobOptions {
    private(set) var arguments: [String] = []
    private(set) var syncsToDisk = false

    /// Options that belong to the caller's side of the library, not to a call.
    static let refused = ["progress": "use splice_job's progress callback", "verbose": "use splice_set_log_handler",
                          "quiet": "use splice_job's log callback", "o": "the output is a parameter of its own",
                          "help": "see `splice help <subcommand>`", "h": "see `splice help <subcommand>`"]

    init(json: String?, command: String) throws {
        guard let json, !json.allSatisfy(\.isWhitespace) else { return }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
        } catch {
            throw UsageError(message: "the options are not JSON: \(Self.reason(error))", command: command)
        }
        guard case .object(let members) = value else { throw UsageError(message: "the options must be a JSON object", command: command) }
        for (key, value) in members.sorted(by: { $0.key < $1.key }) {
            if let why = Self.refused[key] { throw UsageError(message: "option \"\(key)\" is not taken here: \(why)", command: command) }
            guard !key.isEmpty, !key.hasPrefix("-") else { throw UsageError(message: "option \"\(key)\": name it without dashes", command: command) }
            if key == "sync" {
                guard case .bool(let b) = value else { throw UsageError(message: "option \"sync\" is true or false", command: command) }
                syncsToDisk = b
                continue
            }
            switch value {
            case .bool(true): arguments.append("--" + key)
            case .bool(false), .null: continue
            case .object: throw UsageError(message: "option \"\(key)\" cannot be an object", command: command)
            default: arguments += ["--" + key, try value.argument(key, command)]
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error { return context.debugDescription }
        return "\(error)"
    }
}

/// A JSON value, as the options need it.
enum JSONValue: Decodable {
    case null, bool(Bool), integer(Int64), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        if let c = try? decoder.container(keyedBy: Key.self) {
            var members: [String: JSONValue] = [:]
            for key in c.allKeys { members[key.stringValue] = try c.decode(JSONValue.self, forKey: key) }
            self = .object(members)
        } else if var c = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !c.isAtEnd { items.append(try c.decode(JSONValue.self)) }
            self = .array(items)
        } else {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { self = .null }
            else if let b = try? c.decode(Bool.self) { self = .bool(b) }
            else if let i = try? c.decode(Int64.self) { self = .integer(i) }
            else if let d = try? c.decode(Double.self) { self = .number(d) }
            else { self = .string(try c.decode(String.self)) }
        }
    }

    /// The value as one command-line argument: an array's items joined by commas.
    func argument(_ key: String, _ command: String) throws -> String {
        switch self {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .number(let d): return String(d)
        case .array(let items): return try items.map { try $0.argument(key, command) }.joined(separator: ",")
        case .bool(let b): return b ? "true" : "false"
        case .null, .object: throw UsageError(message: "option \"\(key)\" has a value that is not a string, number or list", command: command)
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
