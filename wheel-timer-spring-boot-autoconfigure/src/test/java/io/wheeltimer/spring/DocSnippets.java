package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * The {@code ```java} blocks of the README and the guides ({@link DocFiles}), read and compiled as
 * written: each with its own imports, no declarations assumed, against the class path of the test
 * that compiles it.
 */
final class DocSnippets {

    private static final Pattern TOP_LEVEL_TYPE = Pattern.compile(
            "^(?:public\\s+|abstract\\s+|final\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+)",
            Pattern.MULTILINE);
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public\\s+(?:abstract\\s+|final\\s+)*(?:class|interface|record|enum)\\s+(\\w+)", Pattern.MULTILINE);

    private DocSnippets() {}

    /** Every {@code ```java} block of the README and the guides, in order, with where it is. */
    static List<DocFiles.Block> all() {
        return DocFiles.allBlocks().stream()
                .filter(block -> block.language().equals("java"))
                .toList();
    }

    /** The one snippet that contains {@code marker}; fails unless exactly one does. */
    static String only(List<DocFiles.Block> snippets, String marker) {
        List<DocFiles.Block> matching =
                snippets.stream().filter(s -> s.body().contains(marker)).toList();
        assertThat(matching)
                .as(
                        "snippets containing %s: %s",
                        marker, matching.stream().map(DocFiles.Block::where).toList())
                .hasSize(1);
        return matching.get(0).body();
    }

    /** The names of the top-level types {@code source} declares, in order. */
    static List<String> typeNames(String source) {
        List<String> names = new ArrayList<>();
        Matcher type = TOP_LEVEL_TYPE.matcher(source);
        while (type.find()) {
            names.add(type.group(1));
        }
        return names;
    }

    /**
     * Compiles {@code source} (Java 17, against this JVM's class path) into a new directory under
     * {@code dir} as one file named after its public type (or its first type), and returns a loader
     * of the classes, whose parent is {@code parent}. Fails with {@code name} (where the snippet is)
     * and javac's messages if it does not compile.
     */
    static URLClassLoader compile(String source, Path dir, String name, ClassLoader parent) throws Exception {
        List<String> types = typeNames(source);
        assertThat(types).as("top-level types of the snippet:%n%s", source).isNotEmpty();
        Matcher publicType = PUBLIC_TYPE.matcher(source);
        String fileName = (publicType.find() ? publicType.group(1) : types.get(0)) + ".java";
        Path out =
                Files.createDirectories(dir.resolve(name.replaceAll("[^A-Za-z0-9-]", "_") + "-" + System.nanoTime()));
        Path file = out.resolve(fileName);
        // Imports gathered from several snippets must come before the types: move them up.
        Files.writeString(file, importsFirst(source));

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(
                null,
                null,
                errors,
                "--release",
                "17",
                "-proc:none",
                "-cp",
                System.getProperty("java.class.path"),
                "-d",
                out.toString(),
                file.toString());
        assertThat(status)
                .as("javac of the snippet %s:%n%s%n%s", name, source, errors.toString(StandardCharsets.UTF_8))
                .isZero();
        return new URLClassLoader(new URL[] {out.toUri().toURL()}, parent);
    }

    private static String importsFirst(String source) {
        StringBuilder imports = new StringBuilder();
        StringBuilder rest = new StringBuilder();
        Map<Boolean, List<String>> lines =
                source.lines().collect(Collectors.partitioningBy(line -> line.startsWith("import ")));
        lines.get(true).stream().distinct().forEach(line -> imports.append(line).append('\n'));
        lines.get(false).forEach(line -> rest.append(line).append('\n'));
        return imports + "\n" + rest;
    }
}
