package io.wheeltimer.sample;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * Actuator endpoints answer some errors (an unknown timer: 404) with no body at all; this gives them a
 * problem detail like every other error. Only {@code /actuator/**} responses are buffered.
 */
@Component
class EmptyErrorBodyFilter extends OncePerRequestFilter {

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !request.getRequestURI().startsWith("/actuator/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        ContentCachingResponseWrapper buffered = new ContentCachingResponseWrapper(response);
        chain.doFilter(request, buffered);
        int status = buffered.getStatus();
        if (status >= 400 && buffered.getContentSize() == 0 && !response.isCommitted()) {
            HttpStatus known = HttpStatus.resolve(status);
            Problems.write(
                    response, status, known != null ? known.getReasonPhrase() : "Error", null, request.getRequestURI());
            return;
        }
        buffered.copyBodyToResponse();
    }
}
