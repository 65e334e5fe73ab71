package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the README, the CHANGELOG and the guides leads somewhere: the file exists,
 * and an anchor ({@code file.md#anchor}, or {@code #anchor} in the same file) is one GitHub makes of a
 * heading of that file. Links in code (fenced or inline) and to other sites are not followed.
 */
class DocsLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        List<String> broken = new ArrayList<>();
        int followed = 0;
        for (Path file : DocFiles.markdownFiles()) {
            List<String> prose = DocFiles.prose(file);
            for (int i = 0; i < prose.size(); i++) {
                Matcher link = LINK.matcher(INLINE_CODE.matcher(prose.get(i)).replaceAll(""));
                while (link.find()) {
                    String target = link.group(1);
                    if (target.matches("^[a-z]+:.*")) {
                        continue;
                    }
                    followed++;
                    String problem = problem(file, target);
                    if (problem != null) {
                        broken.add(DocFiles.ROOT.relativize(file) + ":" + (i + 1) + ": " + target + ": " + problem);
                    }
                }
            }
        }
        assertThat(followed).as("relative links followed").isGreaterThan(50);
        assertThat(broken).as("links that lead nowhere").isEmpty();
    }

    /** GitHub's anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
    @Test
    void anchorsAreMadeAsGitHubMakesThem() {
        assertThat(anchors(List.of(
                        "# Title",
                        "## Time limits: `@WheelTimeLimit`",
                        "## A `TaskScheduler` on the wheel",
                        "## With Spring Boot: data, the endpoint, one trace",
                        "## The life lock's connection",
                        "## Many at once: 10,000 timeouts in one call",
                        "## Title")))
                .containsExactly(
                        "title",
                        "time-limits-wheeltimelimit",
                        "a-taskscheduler-on-the-wheel",
                        "with-spring-boot-data-the-endpoint-one-trace",
                        "the-life-locks-connection",
                        "many-at-once-10000-timeouts-in-one-call",
                        "title-1");
    }

    private static String problem(Path from, String target) {
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path file = path.isEmpty() ? from : from.getParent().resolve(path).normalize();
        if (!Files.exists(file)) {
            return "no such file " + DocFiles.ROOT.relativize(file);
        }
        if (anchor == null) {
            return null;
        }
        if (!file.toString().endsWith(".md")) {
            return "an anchor into a file that is not Markdown";
        }
        Set<String> anchors = anchors(DocFiles.prose(file));
        return anchors.contains(anchor)
                ? null
                : "no heading makes #" + anchor + " in " + DocFiles.ROOT.relativize(file);
    }

    private static Set<String> anchors(List<String> lines) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : lines) {
            Matcher heading = HEADING.matcher(line);
            if (!heading.matches()) {
                continue;
            }
            String slug = heading.group(1)
                    .toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N}\\p{Mn}\\p{Pc} -]", "")
                    .replace(' ', '-');
            int repeat = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(repeat == 0 ? slug : slug + "-" + repeat);
        }
        return anchors;
    }
}
