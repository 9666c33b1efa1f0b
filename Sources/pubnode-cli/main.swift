import Foundation
import PubNodeCLI

// `pubnode-cli`: parses the arguments, runs the command and exits with its status
// (0 success, 1 server or network error, 2 usage error).
// A closed pipe (`| head`) is reported by the writes, not by a signal that kills the process.
signal(SIGPIPE, SIG_IGN)
exit(await PubNodeCLIRunner.run(Array(CommandLine.arguments.dropFirst())))
