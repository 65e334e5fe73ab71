package io.wheeltimer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keeps the core guide's first example true: the block is compiled against this build and run. */
class CoreGuideExampleTest {

    private static final String MARKER = "<!-- quick-start";

    @Test
    void theCoreGuidesQuickStartCompilesAndRuns(@TempDir Path dir) throws Exception {
        String source = quickStartBlock(Files.readString(Path.of("..", "docs", "core.md")));
        Path file = dir.resolve("QuickStart.java");
        Files.writeString(file, source);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(
                null,
                null,
                errors,
                "--release",
                "17",
                "-cp",
                System.getProperty("java.class.path"),
                "-d",
                dir.toString(),
                file.toString());
        assertThat(status)
                .as("javac: %s", errors.toString(StandardCharsets.UTF_8))
                .isZero();

        String output = runMain(dir);
        assertThat(output).contains("pending=0", "scheduled=1", "cancelled=1", "0 timeouts never ran");
        assertThat(output).doesNotContain("request timed out");
    }

    private static String quickStartBlock(String guide) {
        int marker = guide.indexOf(MARKER);
        assertThat(marker).as("docs/core.md has the quick-start marker").isNotNegative();
        int start = guide.indexOf("```java\n", marker) + "```java\n".length();
        int end = guide.indexOf("```", start);
        return guide.substring(start, end);
    }

    private static String runMain(Path classes) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (URLClassLoader loader =
                new URLClassLoader(new URL[] {classes.toUri().toURL()}, CoreGuideExampleTest.class.getClassLoader())) {
            Method main = loader.loadClass("QuickStart").getMethod("main", String[].class);
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(original);
        }
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        return String.join("\n", lines);
    }
}
