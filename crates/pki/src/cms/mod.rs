//! CMS (filled in next).
