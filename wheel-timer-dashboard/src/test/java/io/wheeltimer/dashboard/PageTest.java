package io.wheeltimer.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

/** The page's frame: escaping, and what the browser is made to load. */
class PageTest {

    @Test
    void everyValueIsEscapedForTextAndAttributes() {
        assertThat(Html.text("<script>alert('x')</script> & \"q\""))
                .isEqualTo("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
        assertThat(Html.text(null)).isEmpty();
        Viewer masked = new Viewer("/wheel-timer", false, false, "");
        Viewer shown = new Viewer("/wheel-timer", true, false, "");
        assertThat(masked.data("card 4111")).isEqualTo("******");
        assertThat(shown.data("<b>")).isEqualTo("&lt;b&gt;");
        assertThat(masked.data(null)).isEmpty();
    }

    @Test
    void theJavaScriptIsOneScriptFromThisJarOfAtMost60KilobytesGzipped() throws IOException {
        String page = Page.of(new Viewer("/wheel-timer", false, false, ""), "dashboard", "<p>body</p>");
        assertThat(page.split("<script", -1)).as("one script element").hasSize(2);
        assertThat(page).contains("<script src=\"/wheel-timer/assets/htmx.min.js\" defer></script>");

        byte[] script = DashboardRoutes.readScript();
        ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(gzipped)) {
            gzip.write(script);
        }
        assertThat(gzipped.size()).isLessThanOrEqualTo(61_440);
        assertThat(new String(script, java.nio.charset.StandardCharsets.UTF_8)).contains("htmx");
    }

    @Test
    void aNativeImageKeepsTheResourcesThePageReads() throws IOException {
        RuntimeHints hints = new RuntimeHints();
        new DashboardRuntimeHints().registerHints(hints, getClass().getClassLoader());
        String script = new String(
                        getClass()
                                .getClassLoader()
                                .getResourceAsStream(DashboardRuntimeHints.PROPERTIES)
                                .readAllBytes(),
                        java.nio.charset.StandardCharsets.ISO_8859_1)
                .lines()
                .filter(line -> line.startsWith("htmx="))
                .findFirst()
                .orElseThrow()
                .substring("htmx=".length());
        assertThat(RuntimeHintsPredicates.resource().forResource(DashboardRuntimeHints.PROPERTIES))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource(script)).accepts(hints);
    }

    @Test
    void loopbackIsJudgedByTheAddressLiteralOnly() {
        assertThat(DashboardAccess.isLoopback("127.0.0.1")).isTrue();
        assertThat(DashboardAccess.isLoopback("127.8.9.10")).isTrue();
        assertThat(DashboardAccess.isLoopback("::1")).isTrue();
        assertThat(DashboardAccess.isLoopback("0:0:0:0:0:0:0:1")).isTrue();
        assertThat(DashboardAccess.isLoopback("10.0.0.1")).isFalse();
        assertThat(DashboardAccess.isLoopback("localhost"))
                .as("a name is never resolved")
                .isFalse();
        assertThat(DashboardAccess.isLoopback("")).isFalse();
        assertThat(DashboardAccess.isLoopback(null)).isFalse();
    }
}
