package io.wheeltimer.spring;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The documentation as a reader meets it: the root README, the CHANGELOG and every Markdown file under
 * {@code docs/}, read from the repository root (this module's parent directory), with their fenced
 * blocks, the line each block starts on and the HTML comment that marks it.
 */
final class DocFiles {

    /** The repository root, from this module's directory (where Maven runs its tests). */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Pattern FENCE = Pattern.compile("^(\\s*)```(\\S*)\\s*$");
    private static final Pattern MARKER = Pattern.compile("^<!--\\s*([a-z-]+).*-->\\s*$");

    private DocFiles() {}

    /** A fenced block: its file, the line of its opening fence (from 1), language, marker and text. */
    record Block(Path file, int line, String language, String marker, String body) {

        /** Where it is, as a reader finds it: {@code docs/operations.md:42}. */
        String where() {
            return ROOT.relativize(file) + ":" + line;
        }
    }

    /** README.md, CHANGELOG.md and docs/**.md, in a stable order. */
    static List<Path> markdownFiles() {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        files.add(ROOT.resolve("CHANGELOG.md"));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The lines of {@code file}. */
    static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The fenced blocks of {@code file}. A block's marker is the HTML comment on the line before its
     * opening fence (blank lines between allowed), or null. Fails on a fence that is never closed.
     */
    static List<Block> blocks(Path file) {
        List<String> lines = lines(file);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            int start = i;
            StringBuilder body = new StringBuilder();
            i++;
            while (i < lines.size() && !lines.get(i).trim().equals("```")) {
                body.append(stripIndent(lines.get(i), open.group(1).length())).append('\n');
                i++;
            }
            if (i == lines.size()) {
                throw new AssertionError(ROOT.relativize(file) + ":" + (start + 1) + ": a fence that is never closed");
            }
            blocks.add(new Block(file, start + 1, open.group(2), markerBefore(lines, start), body.toString()));
        }
        return blocks;
    }

    /** Every fenced block of every Markdown file. */
    static List<Block> allBlocks() {
        return markdownFiles().stream().flatMap(f -> blocks(f).stream()).toList();
    }

    /** The lines of {@code file} outside fenced blocks; those inside are blank, so lines keep their numbers. */
    static List<String> prose(Path file) {
        List<String> lines = new ArrayList<>(lines(file));
        boolean inFence = false;
        for (int i = 0; i < lines.size(); i++) {
            if (FENCE.matcher(lines.get(i)).matches()) {
                inFence = !inFence;
                lines.set(i, "");
            } else if (inFence) {
                lines.set(i, "");
            }
        }
        return lines;
    }

    private static String markerBefore(List<String> lines, int fence) {
        for (int i = fence - 1; i >= 0; i--) {
            String line = lines.get(i).trim();
            if (line.isEmpty()) {
                continue;
            }
            Matcher marker = MARKER.matcher(line);
            return marker.matches() ? marker.group(1) : null;
        }
        return null;
    }

    private static String stripIndent(String line, int indent) {
        int strip = 0;
        while (strip < indent && strip < line.length() && line.charAt(strip) == ' ') {
            strip++;
        }
        return line.substring(strip);
    }
}
