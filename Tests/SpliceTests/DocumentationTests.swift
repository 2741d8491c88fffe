import Foundation
import Testing
import TestSupport

/// The documentation says what the tool does: docs/cli-reference.md is `splice help` for every
/// subcommand, and every relative link in the README and docs/ leads to a file.
@Suite("Documentation")
struct DocumentationTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    static func help(_ arguments: [String]) throws -> String {
        let r = try Tool.splice(arguments)
        var text = r.stdout + r.stderr
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// The subcommands `splice --help` lists.
    static func subcommands(_ overview: String) -> [String] {
        let lines = overview.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("SUBCOMMANDS:") }) else { return [] }
        return lines[(start + 1)...].prefix { $0.isEmpty || $0.hasPrefix(" ") }
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
            .filter { $0 != "See" }
    }

    @Test func cliReferenceIsTheToolsHelp() throws {
        let reference = try String(contentsOf: Self.repo.appendingPathComponent("docs/cli-reference.md"), encoding: .utf8)
        let overview = try Self.help(["--help"])
        let names = Self.subcommands(overview)
        #expect(names.count >= 10, "\(names)")
        #expect(reference.contains("## splice\n\n```\n\(overview)\n```\n"), "docs/cli-reference.md: splice --help differs (run scripts/cli-reference)")
        for name in names {
            let help = try Self.help(["help", name])
            #expect(reference.contains("## splice \(name)\n\n```\n\(help)\n```\n"),
                    "docs/cli-reference.md: 'splice help \(name)' differs (run scripts/cli-reference)")
        }
    }

    /// The README's first steps print what the README shows: each `$ splice …` of the first
    /// console block after "## First steps", run in a folder of its own beside the examples, its
    /// stderr and then its stdout (a terminal's order: notes come before the summary) compared.
    @Test func readmeFirstStepsAreTrue() throws {
        let readme = try String(contentsOf: Self.repo.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## First steps").dropFirst().first)
        let block = try #require(section.components(separatedBy: "```\n").dropFirst().first)
        var steps: [(command: String, output: String)] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("$ splice ") {
                steps.append((String(line.dropFirst(2)), ""))
            } else if !steps.isEmpty {
                steps[steps.count - 1].output += line + "\n"
            }
        }
        #expect(steps.count >= 4)
        let folder = Fixtures.path("readme-first-steps")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("Examples"), withDestinationURL: Self.repo.appendingPathComponent("Examples"))
        for (command, expected) in steps {
            let arguments = command.split(separator: " ").dropFirst().map(String.init)
            let r = try Tool.run(Tool.spliceBinary, arguments, directory: folder)
            #expect(r.status == 0, "\(command): \(r.stderr)")
            var shown = r.stderr + r.stdout
            while shown.hasSuffix("\n\n") { shown.removeLast() }
            var wanted = expected
            while wanted.hasSuffix("\n\n") { wanted.removeLast() }
            #expect(shown == wanted, "README.md: '\(command)' prints\n\(shown)")
        }
    }

    /// Every `[text](target)` that is not a web address or an anchor names a file that exists.
    @Test func linksResolve() throws {
        let docs = Self.repo.appendingPathComponent("docs")
        let files = [Self.repo.appendingPathComponent("README.md")]
            + (try FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)).filter { $0.pathExtension == "md" }
        let link = try Regex(#"\]\(([^)\s]+)\)"#)
        var broken: [String] = []
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in text.matches(of: link) {
                let target = String(match.output[1].substring ?? "")
                if target.hasPrefix("http") || target.hasPrefix("#") || target.hasPrefix("mailto:") { continue }
                let path = String(target.split(separator: "#").first ?? "")
                let resolved = file.deletingLastPathComponent().appendingPathComponent(path).standardized
                if !FileManager.default.fileExists(atPath: resolved.path) { broken.append("\(file.lastPathComponent): \(target)") }
            }
        }
        #expect(broken.isEmpty, "\(broken)")
        #expect(try String(contentsOf: files[0], encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count < 300)
    }
}
