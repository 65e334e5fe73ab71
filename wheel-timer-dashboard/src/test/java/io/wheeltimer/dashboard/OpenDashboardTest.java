package io.wheeltimer.dashboard;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * A test of the dashboard with nothing held back: writes allowed, requests from any address answered,
 * data always shown, so that every control and every field is on the page to test.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(
        classes = DashboardTestApplication.class,
        properties = {
            "wheel-timer.dashboard.read-only=false",
            "wheel-timer.dashboard.allow-remote=true",
            "wheel-timer.dashboard.show-data=always"
        })
@interface OpenDashboardTest {}
