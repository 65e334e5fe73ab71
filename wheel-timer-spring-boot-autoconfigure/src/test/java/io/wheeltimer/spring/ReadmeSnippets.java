package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
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
 * The {@code ```java} blocks of the root README, read and compiled as written: each with its own
 * imports, no declarations assumed, against the class path of the test that compiles it.
 */
final class ReadmeSnippets {

    private static final Path README = Path.of("..", "README.md");
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);
    private static final Pattern JAVA_FENCE = Pattern.compile("^\\s*```java\\s*$", Pattern.MULTILINE);
    private static final Pattern TOP_LEVEL_TYPE = Pattern.compile(
            "^(?:public\\s+|abstract\\s+|final\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+)",
            Pattern.MULTILINE);
    private static final Pattern PUBLIC_TYPE = Pattern.compile(
            "^public\\s+(?:abstract\\s+|final\\s+)*(?:class|interface|record|enum)\\s+(\\w+)", Pattern.MULTILINE);

    private ReadmeSnippets() {}

    /**
     * Every {@code ```java} block of the README, in order. Fails if a {@code ```java} fence of the
     * README was not read as a block (a fence indented, or followed by other text), so that no
     * snippet escapes the compilers.
     */
    static List<String> all() throws IOException {
        String readme = Files.readString(README);
        List<String> snippets = new ArrayList<>();
        Matcher block = JAVA_BLOCK.matcher(readme);
        while (block.find()) {
            snippets.add(block.group(1));
        }
        assertThat(snippets)
                .as("java blocks read from %s", README.toAbsolutePath().normalize())
                .hasSize((int) JAVA_FENCE.matcher(readme).results().count());
        return snippets;
    }

    /** The one snippet that contains {@code marker}; fails unless exactly one does. */
    static String only(List<String> snippets, String marker) {
        List<String> matching =
                snippets.stream().filter(s -> s.contains(marker)).toList();
        assertThat(matching).as("README snippets containing %s", marker).hasSize(1);
        return matching.get(0);
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
     * of the classes, whose parent is {@code parent}. Fails with javac's messages if it does not
     * compile.
     */
    static URLClassLoader compile(String source, Path dir, String name, ClassLoader parent) throws Exception {
        List<String> types = typeNames(source);
        assertThat(types).as("top-level types of the snippet:%n%s", source).isNotEmpty();
        Matcher publicType = PUBLIC_TYPE.matcher(source);
        String fileName = (publicType.find() ? publicType.group(1) : types.get(0)) + ".java";
        Path out = Files.createDirectories(dir.resolve(name + "-" + System.nanoTime()));
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
                .as("javac of the README snippet:%n%s%n%s", source, errors.toString(StandardCharsets.UTF_8))
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
