package io.wheeltimer.dashboard;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * A headless Chromium from Debian's packages ({@code chromium}, {@code chromium-driver}), driven
 * through the installed chromedriver: Selenium is given both paths, so it never looks for or
 * downloads a browser. A fresh profile in a temporary directory, deleted at close. A test class of
 * the dashboard on a random port registers one ({@code @RegisterExtension}): it opens before the class's
 * tests, on that port, and closes after them.
 */
final class Browser implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    ChromeDriver driver;
    private Path profile;
    private int port;

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        port = SpringExtension.getApplicationContext(context)
                .getEnvironment()
                .getRequiredProperty("local.server.port", Integer.class);
        open();
    }

    /** Loads the dashboard's page at {@code path} (from {@code /wheel-timer} on). */
    void load(String path) {
        driver.get("http://127.0.0.1:" + port + "/wheel-timer" + path);
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        close();
    }

    void open() throws IOException {
        this.profile = Files.createTempDirectory("dashboard-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1400,1200",
                "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort()
                .build();
        this.driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(60));
    }

    @Override
    public void close() throws IOException {
        try {
            driver.quit();
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }
}
